import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processSpawner } from "./process-spawner.ts";
import { warmSpawnerForServers } from "./spawner-for-servers.ts";

// `lathe run` calls this before the agent's code loads: the spawner that starts stdio MCP servers
// then boots meanwhile. A run without such servers starts no spawner for nothing.

const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-spawner-for-servers-"));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.runIf(process.platform !== "win32")("warmSpawnerForServers", () => {
  it("starts no spawner for HTTP servers alone, and starts it once a stdio server is named", async () => {
    const root = path.join(dir, "ws");
    await mkdir(path.join(root, ".lathe"), { recursive: true });
    await writeFile(
      path.join(dir, "settings.json"),
      JSON.stringify({ mcpServers: { web: { url: "http://127.0.0.1:3000/mcp" } } }),
    );
    await warmSpawnerForServers(root, dir);
    expect(processSpawner().pid).toBeUndefined();
    await writeFile(
      path.join(root, ".lathe", "settings.json"),
      JSON.stringify({ mcpServers: { tickets: { command: process.execPath } } }),
    );
    await warmSpawnerForServers(root, dir);
    const pid = processSpawner().pid;
    expect(pid).toBeGreaterThan(0);
    // A live process of its own (it exits with this one: its IPC channel closes).
    expect(() => process.kill(pid as number, 0)).not.toThrow();
  });
});
