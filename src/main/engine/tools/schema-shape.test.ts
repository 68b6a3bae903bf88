import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { assertOutputSchemaCompiles } from "../mcp/mcp-output-schema.ts";
import { validateArguments } from "./argument-validator.ts";
import type { JsonSchema } from "./contract.ts";
import { MAX_SCHEMA_NODES, schemaProblem } from "./schema-check.ts";
import { ToolRegistry } from "./tool-registry.ts";

// Two problems of a plugin's or MCP server's schema that the meta-schema cannot see: a property
// named "__proto__" (which the validator silently skips) and a schema so large that compiling it
// on the first call froze the process for seconds.

/** A tool as an MCP server or plugin gives it: its parameters a schema that arrived as JSON. */
function toolWith(parameters: JsonSchema) {
  const base = defineBuiltin({
    id: "ticket",
    description: "ticket tool",
    schema: z.strictObject({}),
    requires: {},
    readOnly: true,
    kind: "other",
    execute: async () => ({}),
  });
  return { ...base, parameters };
}

const origin = { layer: "project", kind: "mcp", name: "srv" } as const;

// JSON.parse makes an own "__proto__" key, as a server's JSON or a plugin's YAML does; an object
// literal would set the prototype instead.
const requiresProto = (): JsonSchema =>
  JSON.parse('{"type":"object","required":["__proto__"],"properties":{"__proto__":{"type":"string"}}}');

describe("a schema naming a property __proto__", () => {
  it("is refused where it is loaded, saying where and what to do (the validator would never enforce it)", () => {
    // Positive control: compiled as it is, the schema accepts {} although it requires the
    // property, and a number where it asks for a string.
    expect(validateArguments("ticket", requiresProto(), {})).toBeUndefined();
    expect(validateArguments("ticket", requiresProto(), JSON.parse('{"__proto__":5}'))).toBeUndefined();

    expect(schemaProblem(requiresProto(), "schema")).toMatch(
      /^schema\/required names a property "__proto__", which Lathe cannot check .* Give the property another name$/,
    );
    const r = new ToolRegistry();
    expect(() => r.register(toolWith(requiresProto()), origin)).toThrow(
      /^Tool "ticket" has an invalid parameters schema: schema\/required names a property "__proto__"/,
    );
    expect(r.get("ticket")).toBeUndefined();
  });

  it.each<[string, string, RegExp]>([
    ["under properties only", '{"properties":{"__proto__":{"type":"string"}}}', /^schema\/properties names/],
    [
      "nested in an item's required",
      '{"properties":{"a":{"type":"array","items":{"required":["__proto__"]}}}}',
      /^schema\/properties\/a\/items\/required names/,
    ],
    [
      "as a dependentRequired key",
      '{"dependentRequired":{"__proto__":["a"]}}',
      /^schema\/dependentRequired names/,
    ],
    [
      "as a dependentRequired value",
      '{"dependentRequired":{"a":["__proto__"]}}',
      /^schema\/dependentRequired names/,
    ],
    ["as a dependentSchemas key", '{"dependentSchemas":{"__proto__":{}}}', /^schema\/dependentSchemas names/],
  ])("is refused %s", (_name, json, where) => {
    expect(schemaProblem(JSON.parse(json) as JsonSchema, "schema")).toMatch(where);
  });

  it.each<[string, string]>([
    ["as an enum value", '{"type":"object","properties":{"key":{"enum":["__proto__","a"]}}}'],
    ["in a default", '{"type":"object","properties":{"o":{"default":{"__proto__":1}}}}'],
    ["as a property's description", '{"type":"object","properties":{"proto":{"description":"__proto__"}}}'],
  ])("is accepted when __proto__ is only data, %s", (_name, json) => {
    const schema = JSON.parse(json) as JsonSchema;
    expect(schemaProblem(schema, "schema")).toBeUndefined();
    const r = new ToolRegistry();
    r.register(toolWith(schema), origin);
    expect(r.get("ticket")).toBeDefined();
  });
});

// A patternProperties pattern spelt "__proto__" (a regex matching names that hold it) is skipped
// by the validator like a property of that name: what it matches was never checked.
describe("a patternProperties pattern spelt __proto__", () => {
  const withPattern = (pattern: string): JsonSchema =>
    JSON.parse(`{"type":"object","patternProperties":{${JSON.stringify(pattern)}:{"type":"string"}}}`);

  it("is refused, saying where and how to write it instead (the validator would never apply it)", () => {
    // Positive control: compiled as it is, a number passes where the pattern asks for a string;
    // the same pattern spelt another way is applied.
    expect(validateArguments("ticket", withPattern("__proto__"), { x__proto__: 5 })).toBeUndefined();
    expect(validateArguments("ticket", withPattern("(?:__proto__)"), { x__proto__: 5 })).toMatch(
      /must be string/,
    );

    expect(schemaProblem(withPattern("__proto__"), "schema")).toMatch(
      /^schema\/patternProperties has a pattern "__proto__", which Lathe cannot check .* Write the pattern another way that matches the same names, e\.g\. "\(\?:__proto__\)"$/,
    );
    const nested: JsonSchema = { type: "object", properties: { meta: withPattern("__proto__") } };
    expect(schemaProblem(nested, "schema")).toMatch(
      /^schema\/properties\/meta\/patternProperties has a pattern/,
    );
    const r = new ToolRegistry();
    expect(() => r.register(toolWith(withPattern("__proto__")), origin)).toThrow(
      /^Tool "ticket" has an invalid parameters schema: schema\/patternProperties has a pattern "__proto__"/,
    );
    expect(r.get("ticket")).toBeUndefined();
    // Spelt another way, and a pattern that merely holds the name, are fine.
    expect(schemaProblem(withPattern("(?:__proto__)"), "schema")).toBeUndefined();
    expect(schemaProblem(withPattern("^x__proto__$"), "schema")).toBeUndefined();
  });
});

describe("an MCP tool's output schema naming __proto__", () => {
  it("is refused when the tool is bound (the tool is disabled with why)", () => {
    expect(() => assertOutputSchemaCompiles(requiresProto())).toThrow(
      /^outputSchema\/required names a property "__proto__"/,
    );
    expect(() =>
      assertOutputSchemaCompiles({ type: "object", properties: { id: { type: "string" } } }),
    ).not.toThrow();
  });
});

/** An object schema of `count` string properties, as a generated API wrapper might publish. */
const manyProperties = (count: number): JsonSchema => ({
  type: "object",
  properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`field_${i}`, { type: "string" }])),
});

describe("a schema of more than MAX_SCHEMA_NODES schemas", () => {
  it("is refused when the tool loads, naming the tool and the limit, without compiling it", () => {
    const huge = manyProperties(6_000);
    const r = new ToolRegistry();
    const started = performance.now();
    expect(() => r.register(toolWith(huge), origin)).toThrow(
      /^Tool "ticket" has an invalid parameters schema: schema holds more than 5,000 schemas .* Split the tool/,
    );
    const refusing = performance.now() - started;
    expect(r.get("ticket")).toBeUndefined();
    expect(() => assertOutputSchemaCompiles(manyProperties(6_000))).toThrow(
      /^outputSchema holds more than 5,000/,
    );

    // Control, in this run: compiling that schema is what the first call used to pay, on the
    // thread every session shares. Refusing it costs a small part of that.
    const compiling = performance.now();
    expect(validateArguments("ticket", huge, {})).toBeUndefined();
    expect(performance.now() - compiling).toBeGreaterThan(refusing * 5);
  });

  it("counts nested schemas too, but not data (a 10,000-value enum is one schema)", () => {
    expect(MAX_SCHEMA_NODES).toBe(5_000);
    const nested: JsonSchema = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 2_600 }, (_, i) => [`p${i}`, { type: "array", items: { type: "string" } }]),
      ),
    };
    expect(schemaProblem(nested, "schema")).toMatch(/^schema holds more than 5,000 schemas/);
    const bigEnum: JsonSchema = {
      type: "object",
      properties: { code: { enum: Array.from({ length: 10_000 }, (_, i) => ({ code: i })) } },
    };
    expect(schemaProblem(bigEnum, "schema")).toBeUndefined();
    const r = new ToolRegistry();
    r.register(toolWith(manyProperties(4_000)), origin);
    expect(r.get("ticket")).toBeDefined();
  });
});
