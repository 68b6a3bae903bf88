import { afterEach, describe, expect, it, vi } from "vitest";
import { structuredResultProblem } from "../mcp/mcp-output-schema.ts";
import { outputValidator } from "../plugins/plugin-output-schema.ts";
import { assertCompilable, validateArguments } from "./argument-validator.ts";
import type { JsonSchema } from "./contract.ts";
import { VALIDATOR_LOGGER } from "./json-schema-library.ts";

// A format the validator does not know is legal JSON Schema (`format` is open-ended): such a value
// is simply not checked. The validator used to say so with console.warn, on the user's terminal,
// once per schema compiled: "unknown format "x-ticket-id" ignored in schema at path …".

const withFormat = (format: string): JsonSchema => ({
  type: "object",
  properties: { id: { type: "string", format }, when: { type: "string", format: "date" } },
});

describe("formats the validator does not know", () => {
  const printed: unknown[][] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    printed.length = 0;
  });
  const watchConsole = () => {
    for (const method of ["log", "warn", "error"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args));
  };

  it("are not checked, and nothing is printed, by every validator Lathe makes", () => {
    watchConsole();
    const args = withFormat("x-ticket-id");
    expect(() => assertCompilable(args)).not.toThrow();
    expect(validateArguments("t", args, { id: "anything at all" })).toBeUndefined();
    // A known format next to it is still checked.
    expect(validateArguments("t", args, { id: "T-1", when: "not a date" })).toMatch(
      /"when" must match format "date"/,
    );

    const output = withFormat("x-mcp-id");
    expect(structuredResultProblem(output, { id: "whatever" })).toBeUndefined();
    expect(structuredResultProblem(output, { when: "nope" })).toMatch(/must match format "date"/);

    const check = outputValidator("p", withFormat("x-plugin-id"), "/p/index.js");
    expect(() => check({ id: "whatever" })).not.toThrow();

    expect(printed).toEqual([]);
  });

  it("any other message from the validator is not hidden: it is thrown for the caller to report", () => {
    expect(() => VALIDATOR_LOGGER.warn('unknown format "x" ignored in schema at path "#/x"')).not.toThrow();
    expect(() => VALIDATOR_LOGGER.warn("rule before is not defined")).toThrow(
      "The JSON Schema validator reported: rule before is not defined",
    );
  });
});
