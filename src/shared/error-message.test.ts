import { describe, expect, it } from "vitest";
import { errorMessage as enginesErrorMessage } from "../main/engine/errors/error-message.ts";
import { errorMessage } from "./error-message.ts";

class NamedError extends Error {
  override name = "NamedError";
}

describe("errorMessage", () => {
  it.each<[string, unknown, string]>([
    ["an Error: its message alone", new Error("disk full"), "disk full"],
    ["a subclass: its message, not its name", new NamedError("no such tab"), "no such tab"],
    ["an Error without a message", new Error(), ""],
    ["a thrown string, as it is", "socket closed", "socket closed"],
    ["a thrown number", 42, "42"],
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["an object that looks like an error, as text", { message: "not an Error" }, "[object Object]"],
  ])("says %s (the engine's copy too)", (_what, thrown, said) => {
    expect(errorMessage(thrown)).toBe(said);
    expect(enginesErrorMessage(thrown)).toBe(said);
  });
});
