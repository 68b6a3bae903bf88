import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestWorkspace, type TestWorkspace } from "../../../../test/support/test-workspace.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import type { JsonSchema } from "./contract.ts";
import { modelSchema } from "./model-schema.ts";

const SAFE_INT = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER };

describe("modelSchema", () => {
  const rows: Array<[string, JsonSchema, JsonSchema]> = [
    [
      "drops $schema, additionalProperties: false beside listed properties, and safe-integer bounds",
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { n: SAFE_INT, m: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: 9 } },
        additionalProperties: false,
      },
      {
        type: "object",
        properties: { n: { type: "integer", minimum: 1 }, m: { type: "integer", maximum: 9 } },
      },
    ],
    [
      "keeps additionalProperties: false on an object that lists no properties (it means: no arguments)",
      { type: "object", properties: {}, additionalProperties: false },
      { type: "object", properties: {}, additionalProperties: false },
    ],
    [
      "keeps a map's additionalProperties schema, compacted",
      {
        type: "object",
        additionalProperties: { type: "object", properties: { a: SAFE_INT }, additionalProperties: false },
      },
      {
        type: "object",
        additionalProperties: { type: "object", properties: { a: { type: "integer", minimum: 1 } } },
      },
    ],
    [
      "reaches nested objects in items, anyOf and $defs",
      {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: { type: "object", properties: { x: { type: "string" } }, additionalProperties: false },
          },
          either: {
            anyOf: [
              { type: "object", properties: { y: SAFE_INT }, additionalProperties: false },
              { type: "null" },
            ],
          },
        },
        $defs: { d: { type: "object", properties: { z: { type: "string" } }, additionalProperties: false } },
      },
      {
        type: "object",
        properties: {
          list: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
          either: {
            anyOf: [{ type: "object", properties: { y: { type: "integer", minimum: 1 } } }, { type: "null" }],
          },
        },
        $defs: { d: { type: "object", properties: { z: { type: "string" } } } },
      },
    ],
    [
      "treats property names as names, not keywords",
      {
        type: "object",
        properties: {
          additionalProperties: { const: false },
          $schema: { type: "string" },
          maximum: { type: "number" },
        },
        required: ["maximum"],
      },
      {
        type: "object",
        properties: {
          additionalProperties: { const: false },
          $schema: { type: "string" },
          maximum: { type: "number" },
        },
        required: ["maximum"],
      },
    ],
    [
      "keeps every bound that says something, enums, defaults and descriptions",
      {
        type: "object",
        properties: {
          t: { type: "integer", minimum: 1, maximum: 600000, default: 120000, description: "ms" },
          mode: { type: "string", enum: ["a", "b"] },
          s: { type: "string", minLength: 1, maxLength: 64 },
        },
      },
      {
        type: "object",
        properties: {
          t: { type: "integer", minimum: 1, maximum: 600000, default: 120000, description: "ms" },
          mode: { type: "string", enum: ["a", "b"] },
          s: { type: "string", minLength: 1, maxLength: 64 },
        },
      },
    ],
  ];

  it.each(rows)("%s", (_what, input, shown) => {
    const before = structuredClone(input);
    expect(modelSchema(input)).toEqual(shown);
    expect(input).toEqual(before); // the published schema, which validation uses, is untouched
  });

  it("computes a schema's model copy once", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false,
    };
    expect(modelSchema(schema)).toBe(modelSchema(schema));
  });
});

describe("validation still uses the full schema", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await openTestWorkspace();
    await ws.put("a.txt", "one\ntwo\n");
  });
  afterEach(async () => ws.cleanup());

  it("refuses a property the model copy no longer forbids in words", async () => {
    const read = ws.engine.registry.get("read")!.tool;
    expect(modelSchema(read.parameters)).not.toHaveProperty("additionalProperties");
    expect(errorOf(await ws.session.call("read", { path: "a.txt", recursive: true }))).toMatch(/recursive/);
    expect(outputOf<{ content: string }>(await ws.session.call("read", { path: "a.txt" })).content).toBe(
      "one\ntwo\n",
    );
  });

  it("refuses an integer past the safe-integer bound the model copy leaves out", async () => {
    const shown = modelSchema(ws.engine.registry.get("read")!.tool.parameters) as {
      properties: { offset: Record<string, unknown> };
    };
    expect(shown.properties.offset).not.toHaveProperty("maximum");
    expect(errorOf(await ws.session.call("read", { path: "a.txt", offset: 2 ** 60 }))).toMatch(/offset/);
  });
});
