import { describe, expect, it } from "vitest";
import { assertCompilable, validateArguments } from "./argument-validator.ts";
import type { JsonSchema } from "./contract.ts";

// A tool's schema is judged when the tool is registered: one whose validator cannot be built
// (a `$ref` to nothing) is refused there with why, rather than loading and failing every call.

const item = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };

describe("assertCompilable and $ref", () => {
  it.each<[string, JsonSchema, unknown, unknown]>([
    [
      "a reference into $defs (as pydantic writes them)",
      { type: "object", $defs: { Item: item }, properties: { item: { $ref: "#/$defs/Item" } } },
      { item: { n: 1 } },
      { item: { n: "one" } },
    ],
    [
      "a reference into definitions (older drafts)",
      { type: "object", definitions: { Item: item }, properties: { item: { $ref: "#/definitions/Item" } } },
      { item: { n: 1 } },
      { item: {} },
    ],
    [
      "a recursive reference to the root",
      { type: "object", properties: { n: { type: "integer" }, child: { $ref: "#" } } },
      { n: 1, child: { n: 2 } },
      { child: { n: "x" } },
    ],
    [
      "a reference to an anchor",
      {
        type: "object",
        $defs: { Item: { ...item, $anchor: "item" } },
        properties: { item: { $ref: "#item" } },
      },
      { item: { n: 1 } },
      { item: { n: 1.5 } },
    ],
  ])("accepts %s, and its calls are checked through it", (_name, schema, good, bad) => {
    expect(() => assertCompilable(schema)).not.toThrow();
    expect(validateArguments("t", schema, good)).toBeUndefined();
    expect(validateArguments("t", schema, bad)).toMatch(/^Invalid arguments for t: /);
  });

  it.each<[string, JsonSchema, RegExp]>([
    [
      "a reference to a $defs entry that is not there",
      { type: "object", $defs: {}, properties: { a: { $ref: "#/$defs/Missing" } } },
      /^schema\/properties\/a\/\$ref points to "#\/\$defs\/Missing", which is not in the schema/,
    ],
    [
      "a reference into a section the schema does not have",
      { type: "object", properties: { a: { $ref: "#/defs/missing" } } },
      /#\/defs\/missing/,
    ],
    [
      "a reference to another file",
      { type: "object", properties: { a: { $ref: "other.json" } } },
      /other\.json/,
    ],
    [
      "a reference to a web address",
      { type: "object", properties: { a: { $ref: "https://example.com/item.json" } } },
      /https:\/\/example\.com\/item\.json/,
    ],
    [
      "a reference to an anchor that is not there",
      { type: "object", properties: { a: { $ref: "#nope" } } },
      /#nope/,
    ],
  ])("refuses %s when the tool is registered, naming it", (_name, schema, named) => {
    expect(() => assertCompilable(schema)).toThrow(named);
  });
});

// What the model reads when its call does not fit: an error envelope, which is not cut like an
// output. A schema from an MCP server or a plugin may hold a 10,000-value enum or thousands of
// properties, and a wrong call may break a rule thousands of times: the message stays short
// enough to act on, and says what it left out.
describe("validateArguments on large schemas and calls", () => {
  const many = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const properties = Object.fromEntries(many(3_000, "p").map((p) => [p, { type: "string" }]));
  it.each<[string, JsonSchema, unknown, RegExp[]]>([
    [
      "a value outside a 10,000-value enum",
      { type: "object", properties: { region: { enum: many(10_000, "region-") } } },
      { region: "mars" },
      [/"region" must be one of "region-0", "region-1", /, /\(10,000 values in all\)/],
    ],
    [
      "5,000 array items outside their enum",
      { type: "object", properties: { tags: { type: "array", items: { enum: ["a", "b"] } } } },
      { tags: many(5_000, "z") },
      [/"tags\.0" must be one of "a", "b"/, /and 4,99\d more problems/],
    ],
    [
      "3,000 unknown properties where 3,000 are expected",
      { type: "object", properties, additionalProperties: false },
      Object.fromEntries(many(3_000, "q").map((q) => [q, "x"])),
      [/unknown property "q0"/, /Expected properties: p0, p1, /, /and 2,9\d\d more\./],
    ],
    [
      "a 100,000-character value in an enum",
      { type: "object", properties: { mode: { enum: ["x".repeat(100_000), "fast"] } } },
      { mode: "slow" },
      [/must be one of "x{20,}…", "fast"/],
    ],
  ])("%s: a message of at most 4,000 characters", (_name, schema, args, expected) => {
    const message = validateArguments("big_tool", schema, args) ?? "";
    expect(message.length).toBeGreaterThan(0);
    expect(message.length).toBeLessThanOrEqual(4_000);
    for (const pattern of expected) expect(message).toMatch(pattern);
    expect(message).toMatch(/Fix the arguments and call big_tool again\.$/);
  });
});

describe("how a size or a missing property is worded", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 1, maxLength: 3 },
      code: { type: "string", minLength: 2 },
      tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 1 },
      pair: { type: "array", minItems: 2 },
      items: { type: "array", items: { type: "object", required: ["id"] } },
    },
  };

  it.each<[string, unknown, string]>([
    ["an empty string", { name: "" }, '"name" must not be empty'],
    ["a string too long", { name: "abcd" }, '"name" must have at most 3 characters'],
    ["a string too short", { code: "a" }, '"code" must have at least 2 characters'],
    ["an empty list", { tags: [] }, '"tags" must not be empty'],
    ["a list one too long", { tags: ["a", "b"] }, '"tags" must have at most 1 item'],
    ["a list too short", { pair: [1] }, '"pair" must have at least 2 items'],
    ["an item without a required property", { items: [{}] }, 'missing required property "id" in "items.0"'],
  ])("%s", (_name, args, said) => {
    expect(validateArguments("t", schema, args)).toBe(
      `Invalid arguments for t: ${said}. Expected properties: name, code, tags, pair, items. Fix the arguments and call t again.`,
    );
  });
});
