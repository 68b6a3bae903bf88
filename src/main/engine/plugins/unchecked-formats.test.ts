import { describe, expect, it } from "vitest";
import { knownFormats } from "../tools/json-schema-library.ts";
import { uncheckedFormats } from "./unchecked-formats.ts";

describe("uncheckedFormats", () => {
  it("finds the formats the validator does not know, where they are", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", format: "x-ticket-id" },
        when: { type: "string", format: "date-time" },
        // A property named "format" is a schema, and an enum value is data: neither is the keyword.
        format: { type: "string", enum: [{ format: "not-a-keyword" }] },
        list: { type: "array", items: { type: "string", format: "date_time" } },
      },
      $defs: { code: { anyOf: [{ type: "string", format: "x-code" }] } },
    };
    expect(uncheckedFormats(schema, knownFormats())).toEqual([
      { format: "x-ticket-id", path: "properties.id.format" },
      { format: "date_time", path: "properties.list.items.format" },
      { format: "x-code", path: "$defs.code.anyOf.0.format" },
    ]);
  });
});
