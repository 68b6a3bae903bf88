import { describe, expect, it } from "vitest";
import {
  McpServerSchema,
  mcpCommandLine,
  mcpConfigDigest,
  type UnsandboxedServerRequest,
} from "../engine/index.ts";
import { UnsandboxedMcpGate } from "./unsandboxed-mcp-gate.ts";

const ROOT = "/work/project";

/** The request the engine makes for a global server with this config. */
function requestFor(config: object, server = "github"): UnsandboxedServerRequest {
  const parsed = McpServerSchema.parse(config);
  return {
    server,
    layer: "global",
    commandLine: mcpCommandLine(parsed, ROOT),
    configDigest: mcpConfigDigest(parsed, ROOT),
    reason: "sandbox turned off in settings",
  };
}

/** A gate with a UI that says yes to everything and records what it was asked. */
function yesGate() {
  const gate = new UnsandboxedMcpGate();
  const asked: UnsandboxedServerRequest[] = [];
  gate.attach({
    askUnsandboxedMcp: (request) => {
      asked.push(request);
      return Promise.resolve(true);
    },
  });
  return { gate, asked };
}

describe("the unsandboxed MCP server gate", () => {
  it("does not ask again for the same start (a reload)", async () => {
    const { gate, asked } = yesGate();
    const config = { command: "node", args: ["s.js"], env: { GITHUB_TOKEN: "ghp_first" } };
    expect(await gate.approver(requestFor(config))).toBe(true);
    expect(await gate.approver(requestFor(config))).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it.each([
    [
      "a token in its environment",
      { command: "node", args: ["s.js"], env: { GITHUB_TOKEN: "ghp_first" } },
      { command: "node", args: ["s.js"], env: { GITHUB_TOKEN: "ghp_second" } },
    ],
    [
      "a --token argument",
      { command: "node", args: ["s.js", "--token", "abcdef1234567890abcdef"] },
      { command: "node", args: ["s.js", "--token", "fedcba0987654321fedcba"] },
    ],
    [
      "the secret part of NODE_OPTIONS",
      { command: "node", env: { NODE_OPTIONS: "--require /tmp/a.js --token=abcdefabcdef12345678" } },
      { command: "node", env: { NODE_OPTIONS: "--require /tmp/a.js --token=zyxwvuzyxwvu87654321" } },
    ],
  ])("asks again when only %s changed, although the line shown is the same", async (_what, first, second) => {
    const { gate, asked } = yesGate();
    await gate.approver(requestFor(first));
    // Positive control: the person would be shown exactly the line they already said yes to.
    expect(requestFor(second).commandLine).toBe(requestFor(first).commandLine);
    await gate.approver(requestFor(second));
    expect(asked).toHaveLength(2);
  });

  it("remembers a yes per server: another server with the same start is asked about", async () => {
    const { gate, asked } = yesGate();
    const config = { command: "node", args: ["s.js"] };
    await gate.approver(requestFor(config, "one"));
    await gate.approver(requestFor(config, "two"));
    expect(asked.map((r) => r.server)).toEqual(["one", "two"]);
  });
});
