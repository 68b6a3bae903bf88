import { describe, expect, it } from "vitest";
import { schemaTypos } from "./schema-typos.ts";

describe("schemaTypos finds the slips a validator would ignore or blame vaguely", () => {
  it.each([
    [
      "a type that is no JSON type",
      { type: "object", properties: { path: { type: "strng" } } },
      "properties.path.type",
      /is "strng", which is not a JSON Schema type \(did you mean "string"\?\)/,
    ],
    [
      "one bad type in a list of types",
      { type: "object", properties: { n: { type: ["integer", "nul"] } } },
      "properties.n.type",
      /is "nul".*did you mean "null"/,
    ],
    [
      "a type without any near match",
      { type: "object", properties: { d: { type: "date" } } },
      "properties.d.type",
      /is "date", which is not a JSON Schema type$/,
    ],
    [
      "a misspelt keyword",
      { type: "object", properties: { name: { type: "string", minLenght: 1 } } },
      "properties.name.minLenght",
      /is not a JSON Schema keyword \(did you mean "minLength"\?\), so validators would silently ignore it/,
    ],
    [
      "a misspelt required",
      { type: "object", properties: { a: { type: "string" } }, requried: ["a"] },
      "requried",
      /did you mean "required"/,
    ],
    [
      "a required name that is not a property",
      { type: "object", properties: { path: { type: "string" } }, required: ["paht"] },
      "required.0",
      /is "paht", which is not one of the properties \(path\), so no call could ever pass \(did you mean "path"\?\)/,
    ],
    [
      "a typo deep in items and anyOf",
      { type: "object", properties: { list: { type: "array", items: { anyOf: [{ type: "numbr" }] } } } },
      "properties.list.items.anyOf.0.type",
      /did you mean "number"/,
    ],
  ])("%s", (_name, schema, path, problem) => {
    const typos = schemaTypos(schema, { strict: true });
    expect(typos).toHaveLength(1);
    expect(typos[0]?.path).toBe(path);
    expect(typos[0]?.problem).toMatch(problem);
    expect(typos[0]?.fix).not.toBe("");
  });

  it.each([
    [
      "a correct schema",
      { type: "object", properties: { a: { type: "string", minLength: 1 } }, required: ["a"] },
    ],
    ["annotations of the author's own", { type: "object", properties: {}, "x-ui": 1, category: "files" }],
    ["OpenAPI's example", { type: "object", properties: { a: { type: "string", example: "x" } } }],
    ["a property named like a keyword", { type: "object", properties: { requried: { type: "string" } } }],
    [
      "required names an open object's extra property",
      { type: "object", properties: {}, additionalProperties: true, required: ["anything"] },
    ],
    [
      "required with composition",
      { type: "object", allOf: [{ properties: { a: {} } }], properties: {}, required: ["a"] },
    ],
  ])("leaves %s alone", (_name, schema) => {
    expect(schemaTypos(schema, { strict: true })).toEqual([]);
  });

  it("does not hold an output schema's required to its properties (extra properties are allowed there)", () => {
    const schema = { type: "object", properties: { a: {} }, required: ["b"] };
    expect(schemaTypos(schema, { strict: false })).toEqual([]);
    expect(schemaTypos(schema, { strict: true })).toHaveLength(1);
  });
});
