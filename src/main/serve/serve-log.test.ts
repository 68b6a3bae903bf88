import { afterEach, describe, expect, it, vi } from "vitest";
import { logServeError } from "./serve-log.ts";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function written(): string {
  const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  logServeError("audit.query failed", new Error("the database is locked"));
  return write.mock.calls.map(([chunk]) => String(chunk)).join("");
}

describe("logServeError", () => {
  it("prints one line with the message, no stack trace", () => {
    vi.stubEnv("LATHE_DEBUG", "");
    expect(written()).toBe("lathe serve: audit.query failed: the database is locked\n");
  });

  it("prints the stack trace with LATHE_DEBUG=1", () => {
    vi.stubEnv("LATHE_DEBUG", "1");
    expect(written()).toMatch(/^lathe serve: audit\.query failed: Error: the database is locked\n\s+at /);
  });
});
