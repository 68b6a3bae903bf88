import { describe, expect, it } from "vitest";
import { schemaProblem } from "./schema-check.ts";
import type { JsonSchema } from "./contract.ts";

// A tool's schema is checked when the tool is registered, so a broken one is refused with the
// reason rather than failing every call: the meta-schema, and every regular expression in it.

describe("schemaProblem", () => {
  it.each<[string, JsonSchema]>([
    ["a plain object schema", { type: "object", properties: { q: { type: "string" } } }],
    [
      "a pattern that compiles",
      { type: "object", properties: { q: { type: "string", pattern: "^a+(b|c)$" } } },
    ],
    [
      "a pattern property that compiles",
      { type: "object", patternProperties: { "^x-[a-z]+$": { type: "string" } } },
    ],
    ["a property named pattern", { type: "object", properties: { pattern: { type: "string" } } }],
    [
      "a pattern-like default (data)",
      { type: "object", properties: { q: { type: "object", default: { pattern: "(" } } } },
    ],
    [
      "a pattern-like const and enum (data)",
      { type: "object", properties: { q: { const: { pattern: "[" }, enum: [{ pattern: "(" }] } } },
    ],
    ["a pattern-like example (data)", { type: "object", examples: [{ pattern: "(" }] }],
    ["a unicode class", { type: "object", properties: { q: { type: "string", pattern: "^\\p{L}+$" } } }],
  ])("accepts %s", (_name, schema) => {
    expect(schemaProblem(schema, "schema")).toBeUndefined();
  });

  it.each<[string, JsonSchema, RegExp]>([
    [
      "properties that are no object",
      { type: "object", properties: 5 },
      /^schema\/properties must be object/,
    ],
    [
      "a negative minLength",
      { type: "object", properties: { q: { minLength: -1 } } },
      /^schema\/properties\/q\/minLength must be >= 0/,
    ],
    [
      "an unterminated group in a nested pattern",
      { type: "object", properties: { q: { type: "array", items: { type: "string", pattern: "(" } } } },
      /^schema\/properties\/q\/items\/pattern is not a valid regular expression: .*\(/,
    ],
    [
      "a pattern property name that is no regex",
      { type: "object", patternProperties: { "[a-": { type: "string" } } },
      /^schema\/patternProperties\/\[a- is not a valid regular expression/,
    ],
    [
      "an escape only valid without the u flag",
      { type: "object", properties: { q: { type: "string", pattern: "\\-\\q" } } },
      /^schema\/properties\/q\/pattern is not a valid regular expression/,
    ],
    [
      "a pattern inside anyOf",
      {
        type: "object",
        properties: { q: { anyOf: [{ type: "string" }, { type: "string", pattern: "a{2,1}" }] } },
      },
      /^schema\/properties\/q\/anyOf\/1\/pattern is not a valid regular expression/,
    ],
  ])("refuses %s, saying where", (_name, schema, problem) => {
    expect(schemaProblem(schema, "schema")).toMatch(problem);
  });

  it("words the problem with the name it is given", () => {
    expect(schemaProblem({ type: "object", properties: { q: { pattern: "(" } } }, "output_schema")).toMatch(
      /^output_schema\/properties\/q\/pattern is not/,
    );
  });
});
