import { describe, expect, it } from "vitest";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { outputValidator } from "./plugin-output-schema.ts";

// A plugin's output_schema is checked like its input_schema: a result that breaks a format the
// schema names ("date-time", "email") is the plugin's bug, said so, rather than passed on silently.

describe("a plugin's output_schema formats", () => {
  const check = outputValidator(
    "when",
    {
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        ticket: { type: "string", format: "x-ticket" },
      },
    },
    "/plugins/when/index.js",
  );

  it("accepts a result that fits them, and does not check a format of the author's own", () => {
    expect(() => check({ at: "2026-11-27T11:00:00Z", ticket: "anything" })).not.toThrow();
  });

  it("refuses a result that breaks one, naming the field and blaming the plugin", () => {
    let thrown: unknown;
    try {
      check({ at: "yesterday" });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ToolCallError);
    expect((thrown as Error).message).toBe(
      'when returned a result that does not match its output_schema: "at" must match format "date-time". This is a bug in the plugin (/plugins/when/index.js), not in the call; do not retry it, tell the user.',
    );
  });
});
