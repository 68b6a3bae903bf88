import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT, runLathe } from "./support/lathe-cli.ts";

// A person's MCP servers from the shell, through `node bin/lathe.mjs`: which commands start them,
// and what `lathe tools` says about one that is not there yet.

const SCRIPTED = path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts");

let home: string;
let root: string;
let script: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-cli-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-mcp-cli-root-")));
  script = path.join(home, "script.json");
  await writeFile(
    script,
    JSON.stringify({
      tools: [{ name: "echo", description: "Echo the text.", inputSchema: { type: "object" } }],
    }),
  );
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

const lathe = (args: string[]) => runLathe(args, { home, cwd: root });

async function settings(value: unknown): Promise<void> {
  await writeFile(path.join(home, "settings.json"), JSON.stringify(value));
}

describe("commands that only read what Lathe recorded start no MCP server", () => {
  it.each([
    ["audit", ["audit", "--limit", "5"]],
    ["session close", ["session", "close", "s1"]],
    ["run --replay", ["run", "--resume", "s1", "--replay"]],
  ])("%s", async (_name, args) => {
    await settings({ mcpServers: { scripted: { command: process.execPath, args: [SCRIPTED, script] } } });
    // Positive control: a command that uses the tools starts the server (and says so first).
    const call = await lathe(["call", "read", '{"path":"."}', "--session", "s1"]);
    expect(call.stderr).toContain("starting MCP server scripted (global)");

    const run = await lathe(args);
    expect(run.stderr).not.toContain("starting MCP server");
    expect(run.stderr).not.toContain("scripted");
  });
});
