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
