import { describe, expect, it } from "vitest";
import { McpServerSchema, type McpServerConfig } from "../config/lathe-settings.ts";
import { configDigest } from "./mcp-config-digest.ts";
import { commandLine } from "./mcp-command-line.ts";

const ROOT = "/work/project";
const parse = (value: object): McpServerConfig => McpServerSchema.parse(value);

describe("a server's config digest", () => {
  // Each pair starts differently but is shown the same: the shown line masks what differs.
  it.each([
    [
      "a token in the environment",
      { command: "node", args: ["s.js"], env: { GITHUB_TOKEN: "ghp_first" } },
      { command: "node", args: ["s.js"], env: { GITHUB_TOKEN: "ghp_second" } },
    ],
    [
      "an opaque value under a harmless name",
      { command: "node", env: { SOME_ID: "x8Yz1q" } },
      { command: "node", env: { SOME_ID: "q1zY8x" } },
    ],
    [
      "the secret part of a variable that changes what runs",
      { command: "node", env: { NODE_OPTIONS: "--require /tmp/a.js --token=abcdefabcdef12345678" } },
      { command: "node", env: { NODE_OPTIONS: "--require /tmp/a.js --token=zyxwvuzyxwvu87654321" } },
    ],
    [
      "a --token argument",
      { command: "node", args: ["s.js", "--token", "abcdef1234567890abcdef"] },
      { command: "node", args: ["s.js", "--token", "fedcba0987654321fedcba"] },
    ],
    [
      "the password of a URL argument",
      { command: "node", args: ["postgres://u:hunter2@db/x"] },
      { command: "node", args: ["postgres://u:letmein@db/x"] },
    ],
    [
      "a header value of an HTTP server",
      { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer a" } },
      { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer b" } },
    ],
  ])("tells apart two starts that differ only in %s", (_what, first, second) => {
    const a = parse(first);
    const b = parse(second);
    // Positive control: the line a person is shown cannot tell them apart.
    expect(commandLine(a, ROOT)).toBe(commandLine(b, ROOT));
    expect(configDigest(a, ROOT)).not.toBe(configDigest(b, ROOT));
  });

  it.each([
    ["the command", { command: "bunx" }],
    ["an argument", { args: ["s.js", "--unsafe"] }],
    ["an added variable", { env: { API_URL: "https://x", LD_PRELOAD: "/tmp/evil.so" } }],
    ["the working folder", { cwd: "sub" }],
    ["a variable of Lathe's environment it receives", { allowEnv: ["GH_TOKEN"] }],
    ["a host it may reach", { allowNetwork: ["api.github.com"] }],
  ])("changes when %s changes", (_what, over) => {
    const base = { command: "node", args: ["s.js"], env: { API_URL: "https://x" } };
    expect(configDigest(parse({ ...base, ...over }), ROOT)).not.toBe(configDigest(parse(base), ROOT));
  });

  it("depends on the folder a server without a cwd runs in, as the shown line does", () => {
    const config = parse({ command: "node", args: ["s.js"] });
    expect(configDigest(config, "/a")).not.toBe(configDigest(config, "/b"));
    const pinned = parse({ command: "node", args: ["s.js"], cwd: "/srv" });
    expect(configDigest(pinned, "/a")).toBe(configDigest(pinned, "/b"));
  });

  it("is the same for the same start, whatever the key order and the switches that do not change it", () => {
    const a = parse({ command: "node", args: ["s.js"], env: { A: "1", B: "2" } });
    const b = parse({
      env: { B: "2", A: "1" },
      args: ["s.js"],
      command: "node",
      disabled: true,
      defer: true,
    });
    expect(configDigest(a, ROOT)).toBe(configDigest(b, ROOT));
  });
});
