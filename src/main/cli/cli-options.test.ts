import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { InvalidArgumentError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAgentId, parsePort, parseRoot } from "./cli-options.ts";

describe("parsePort", () => {
  it.each([
    ["0", 0],
    ["8080", 8080],
    ["65535", 65535],
  ])("accepts %s", (text, port) => {
    expect(parsePort(text)).toBe(port);
  });

  it.each(["", "-1", "65536", "80.5", "1e3", "0x50", " 80", "http"])(
    "refuses %j as a usage error",
    (text) => {
      expect(() => parsePort(text)).toThrow(InvalidArgumentError);
    },
  );
});

describe("parseAgentId", () => {
  it.each(["default", "reviewer", "a.b_c-1", "x".repeat(64)])("accepts %j", (id) => {
    expect(parseAgentId(id)).toBe(id);
  });

  it.each(["", "../x", "a/b", ".hidden", "-flag", "x".repeat(65), "sp ace"])(
    "refuses %j as a usage error",
    (id) => {
      expect(() => parseAgentId(id)).toThrow(InvalidArgumentError);
    },
  );
});

describe("parseRoot", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-cli-options-"));
    await writeFile(path.join(dir, "file.txt"), "x");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("returns an existing folder as an absolute path", () => {
    expect(parseRoot(dir)).toBe(dir);
    expect(path.isAbsolute(parseRoot("."))).toBe(true);
  });

  it.each([
    ["a missing path", "missing", "does not exist"],
    ["a file", "file.txt", "is not a folder"],
  ])("refuses %s", (_name, entry, message) => {
    expect(() => parseRoot(path.join(dir, entry))).toThrow(message);
  });
});
