import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../tools/contract.ts";
import {
  assertOutputSchemaCompiles,
  compileOutputSchemaAhead,
  structuredResultProblem,
} from "./mcp-output-schema.ts";

/** An output schema the validator cannot compile: it points at a definition it does not have. */
const unresolvable = (): JsonSchema => ({
  type: "object",
  properties: { total: { $ref: "#/$defs/missing" } },
});

describe("an MCP tool's output schema compiled as its server's list arrives", () => {
  it("still refuses, when the tool is bound, a schema that does not compile, saying why", () => {
    // Positive control: bound without being compiled ahead, the schema is refused.
    let why = "";
    try {
      assertOutputSchemaCompiles(unresolvable());
    } catch (err) {
      why = (err as Error).message;
    }
    expect(why).toMatch(/missing/);
    const schema = unresolvable();
    expect(() => compileOutputSchemaAhead(schema)).not.toThrow();
    expect(() => assertOutputSchemaCompiles(schema)).toThrow(why);
  });

  it("checks results with the validator compiled ahead", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { total: { type: "number" } },
      required: ["total"],
    };
    compileOutputSchemaAhead(schema);
    expect(() => assertOutputSchemaCompiles(schema)).not.toThrow();
    expect(structuredResultProblem(schema, { total: 3 })).toBeUndefined();
    expect(structuredResultProblem(schema, { total: "three" })).toMatch(/does not fit/);
  });
});
