import { describe, expect, it } from "vitest";
import { chooseToolId, isValidToolId, prefixedToolId, sanitizeToolId } from "./mcp-naming.ts";

describe("MCP tool naming", () => {
  it.each([
    ["echo", "echo"],
    ["get-sum", "get-sum"],
    ["read_file", "read_file"],
    ["files.read", "files_read"],
    ["git/status", "git_status"],
    ["9lives", "t_9lives"],
    ["_private", "t__private"],
    ["émoji🙂", "t__moji__"],
    ["", "t_"],
  ])("sanitises %j to a valid registry id %j", (name, id) => {
    expect(sanitizeToolId(name)).toBe(id);
    expect(isValidToolId(sanitizeToolId(name))).toBe(true);
  });

  it("keeps over-long names within 64 characters and distinct", () => {
    const a = sanitizeToolId(`${"x".repeat(80)}a`);
    const b = sanitizeToolId(`${"x".repeat(80)}b`);
    expect(a).toHaveLength(64);
    expect(isValidToolId(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it("uses the flat name when it is free and mcp__<server>__<tool> when it collides", () => {
    const taken = new Set(["read", "echo"]);
    expect(chooseToolId("fs", "read_file", (id) => taken.has(id))).toBe("read_file");
    expect(chooseToolId("everything", "echo", (id) => taken.has(id))).toBe("mcp__everything__echo");
    expect(prefixedToolId("my.server", "do it")).toBe("mcp__my_server__do_it");
  });

  it("falls back to a hashed id when even the prefixed name is taken", () => {
    const taken = new Set(["echo", "mcp__s__echo"]);
    const id = chooseToolId("s", "echo", (x) => taken.has(x));
    expect(id).toMatch(/^mcp__s__echo_[0-9a-f]{8}$/);
    expect(isValidToolId(id)).toBe(true);
  });
});
