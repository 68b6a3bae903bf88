import { describe, expect, it } from "vitest";
import { GbnfSchemaSet, dropOmittedNulls } from "./gbnf-json-schema.ts";

const limits = { maxStringLength: 100 };

function convert(schema: unknown): Record<string, unknown> {
  const set = new GbnfSchemaSet(limits);
  return set.withDefs(set.add(schema)) as unknown as Record<string, unknown>;
}

describe("GbnfSchemaSet", () => {
  const cases: [string, unknown, unknown][] = [
    ["an unbounded string gets the cap", { type: "string" }, { type: "string", maxLength: 100 }],
    ["a longer maxLength is capped", { type: "string", maxLength: 5000 }, { type: "string", maxLength: 100 }],
    [
      "a shorter maxLength stays",
      { type: "string", minLength: 2, maxLength: 8 },
      { type: "string", minLength: 2, maxLength: 8 },
    ],
    [
      "minLength above the cap is lowered",
      { type: "string", minLength: 500 },
      { type: "string", minLength: 100, maxLength: 100 },
    ],
    ["a date format is kept", { type: "string", format: "date" }, { type: "string", format: "date" }],
    [
      "other formats are plain strings",
      { type: "string", format: "uri" },
      { type: "string", maxLength: 100 },
    ],
    ["an enum", { type: "string", enum: ["a", "b"] }, { enum: ["a", "b"] }],
    [
      "a small integer range is listed value by value",
      { type: "integer", minimum: 1, maximum: 5 },
      { enum: [1, 2, 3, 4, 5] },
    ],
    [
      "exclusive bounds (numbers, as in newer drafts) leave their ends out",
      { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 3.5 },
      { enum: [1, 2, 3] },
    ],
    [
      "exclusive bounds (booleans, as in draft 4) leave their ends out",
      { type: "integer", minimum: -2, maximum: 2, exclusiveMinimum: true, exclusiveMaximum: true },
      { enum: [-1, 0, 1] },
    ],
    [
      "the tighter of two lower bounds wins",
      { type: "integer", minimum: 0, exclusiveMinimum: 2, maximum: 4 },
      { enum: [3, 4] },
    ],
    ["fractional bounds round inwards", { type: "integer", minimum: 0.5, maximum: 2.9 }, { enum: [1, 2] }],
    [
      "multipleOf keeps its multiples",
      { type: "integer", minimum: 0, maximum: 10, multipleOf: 5 },
      { enum: [0, 5, 10] },
    ],
    ["a range open at one end stays any integer", { type: "integer", minimum: 1 }, { type: "integer" }],
    [
      "a range too wide to list stays any integer",
      { type: "integer", minimum: 1, maximum: 1000 },
      { type: "integer" },
    ],
    ["an empty range stays any integer", { type: "integer", minimum: 5, maximum: 1 }, { type: "integer" }],
    [
      "a bounded number (not integer) is not listed",
      { type: "number", minimum: 1, maximum: 3 },
      { type: "number" },
    ],
    ["a const", { const: 3 }, { const: 3 }],
    [
      "a type list",
      { type: ["string", "null"] },
      { oneOf: [{ type: "string", maxLength: 100 }, { type: "null" }] },
    ],
    [
      "anyOf becomes oneOf",
      { anyOf: [{ type: "integer" }, { type: "boolean" }] },
      { oneOf: [{ type: "integer" }, { type: "boolean" }] },
    ],
    [
      "an array with bounded items",
      { type: "array", items: { type: "string" }, maxItems: 3 },
      { type: "array", items: { type: "string", maxLength: 100 }, maxItems: 3 },
    ],
    [
      "optional properties become nullable, required ones stay",
      {
        type: "object",
        properties: { path: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1 } },
        required: ["path"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          path: { type: "string", minLength: 1, maxLength: 100 },
          limit: { oneOf: [{ type: "integer" }, { type: "null" }] },
        },
      },
    ],
    [
      "an optional property that already allows null is left alone",
      { type: "object", properties: { note: { type: ["string", "null"] } } },
      {
        type: "object",
        properties: { note: { oneOf: [{ type: "string", maxLength: 100 }, { type: "null" }] } },
      },
    ],
    [
      "a map keeps free keys with converted values",
      { type: "object", additionalProperties: { type: "string" } },
      { type: "object", properties: {}, additionalProperties: { type: "string", maxLength: 100 } },
    ],
    [
      "allOf is merged",
      {
        allOf: [
          { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
          { properties: { b: { type: "boolean" } }, required: ["b"] },
        ],
      },
      { type: "object", properties: { a: { type: "integer" }, b: { type: "boolean" } } },
    ],
  ];
  for (const [name, schema, expected] of cases) {
    it(name, () => {
      expect(convert(schema)).toEqual(expected);
    });
  }

  it("turns a schema with no constraints into any JSON value with a bounded top-level string", () => {
    const converted = convert({ description: "anything" });
    expect(converted["oneOf"]).toContainEqual({ type: "string", maxLength: 100 });
    expect(converted["oneOf"]).toContainEqual({ type: "object", additionalProperties: true });
  });

  it("keeps recursive definitions as references under prefixed $defs", () => {
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["name", "children"],
      $defs: {
        node: {
          type: "object",
          properties: {
            name: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
          required: ["name", "children"],
        },
      },
    };
    const set = new GbnfSchemaSet(limits);
    const first = set.add(tree);
    const second = set.add({
      type: "object",
      properties: { x: { $ref: "#/definitions/node" } },
      required: ["x"],
      definitions: { node: { type: "integer" } },
    });
    const root = set.withDefs({ oneOf: [first, second] }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(root["$defs"] ?? {}).sort()).toEqual(["d0_node", "d1_node"]);
    expect(root["$defs"]?.["d1_node"]).toEqual({ type: "integer" });
    expect(JSON.stringify(root["$defs"]?.["d0_node"])).toContain('"$ref":"#/$defs/d0_node"');
  });
});

describe("dropOmittedNulls", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      limit: { type: "integer" },
      note: { type: ["string", "null"] },
      nested: { type: "object", properties: { deep: { type: "boolean" } } },
      list: { type: "array", items: { $ref: "#/$defs/item" } },
    },
    required: ["path"],
    $defs: { item: { type: "object", properties: { tag: { type: "string" } } } },
  };
  const cases: [string, unknown, unknown][] = [
    ["drops a null optional property", { path: "a", limit: null }, { path: "a" }],
    ["keeps a null the schema allows", { path: "a", note: null }, { path: "a", note: null }],
    ["keeps a null in a required property (the validator reports it)", { path: null }, { path: null }],
    ["drops nulls in nested objects", { path: "a", nested: { deep: null } }, { path: "a", nested: {} }],
    [
      "drops nulls in array items through $ref",
      { path: "a", list: [{ tag: null }, { tag: "x" }] },
      { path: "a", list: [{}, { tag: "x" }] },
    ],
    ["keeps values it does not know", { path: "a", extra: null }, { path: "a", extra: null }],
  ];
  for (const [name, value, expected] of cases) {
    it(name, () => {
      expect(dropOmittedNulls(value, schema)).toEqual(expected);
    });
  }
});
