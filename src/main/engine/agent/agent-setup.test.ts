import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { setupAgentRun as setupAgentRunType } from "./agent-setup.ts";
import { ProviderRegistry } from "./provider-registry.ts";

let home: string;
let root: string;
/**
 * setupAgentRun with a process spawner of its own: the spawner is one per process (module state),
 * and once any engine started it (its machine check does) it stays.
 */
async function freshSetup(): Promise<{
  setupAgentRun: typeof setupAgentRunType;
  processSpawner: () => { pid: number | undefined };
}> {
  vi.resetModules();
  const [{ setupAgentRun }, { processSpawner }] = await Promise.all([
    import("./agent-setup.ts"),
    import("../spawner/process-spawner.ts"),
  ]);
  return { setupAgentRun, processSpawner };
}

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-setup-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-setup-root-")));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

/** A registry whose one provider notes, as the model resolves, whether the spawner runs yet. */
function noting(
  seen: { spawnerPid?: number | undefined },
  processSpawner: () => { pid: number | undefined },
): ProviderRegistry {
  const registry = new ProviderRegistry();
  registry.register({
    name: "mock",
    description: "a scripted model",
    create(model) {
      seen.spawnerPid = processSpawner().pid;
      return { spec: { provider: "mock", model }, model: new MockLanguageModelV4() };
    },
  });
  return registry;
}

describe.skipIf(process.platform === "win32")("a run's process spawner, as the run is set up", () => {
  it("is left to the run's first step when no stdio MCP server is configured", async () => {
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ mcpServers: {} }));
    const { setupAgentRun, processSpawner } = await freshSetup();
    const seen: { spawnerPid?: number | undefined } = {};
    const setup = await setupAgentRun({
      root,
      latheHome: home,
      model: "mock:m",
      providers: noting(seen, processSpawner),
      warmSpawner: true,
    });
    await setup.engine.close();
    expect("spawnerPid" in seen).toBe(true);
    expect(seen.spawnerPid).toBeUndefined();
  });

  it("is started before the model resolves when a stdio MCP server is, ahead of the engine that starts the server", async () => {
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ mcpServers: { quick: { command: process.execPath, args: ["-e", "0"] } } }),
    );
    const { setupAgentRun, processSpawner } = await freshSetup();
    const seen: { spawnerPid?: number | undefined } = {};
    const setup = await setupAgentRun({
      root,
      latheHome: home,
      model: "mock:m",
      providers: noting(seen, processSpawner),
      warmSpawner: true,
    });
    await setup.engine.close();
    expect(seen.spawnerPid).toBeGreaterThan(0);
  });
});
