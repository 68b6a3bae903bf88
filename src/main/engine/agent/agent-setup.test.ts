import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
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

/** The processes (host pids) whose command line holds `marker`: the server, and what wraps it. */
async function processesWith(marker: string): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const line = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (line.includes(marker)) found.push(Number(pid));
  }
  return found;
}

/** True once no process's command line holds `marker` (polled: a stopped server ends a moment after). */
async function allEnded(marker: string, withinMs = 10_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if ((await processesWith(marker)).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.skipIf(process.platform === "win32")("a run's MCP servers, as the run is set up", () => {
  /** A stdio server that writes its pid to `pidFile` and then stays up, as a real server does. */
  function lingeringServer(pidFile: string): object {
    const script = `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    return { mcpServers: { slow: { command: process.execPath, args: ["-e", script] } } };
  }

  /** Resolves to the pid the server wrote once it runs (the model's provider waits on it). */
  async function serverPid(pidFile: string, withinMs = 20_000): Promise<number | undefined> {
    const until = Date.now() + withinMs;
    while (Date.now() < until) {
      const text = await readFile(pidFile, "utf8").catch(() => "");
      if (text !== "") return Number(text);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  it("are already starting while the model's provider loads, not only after it", async () => {
    const pidFile = path.join(root, "server.pid");
    await writeFile(path.join(home, "settings.json"), JSON.stringify(lingeringServer(pidFile)));
    const { setupAgentRun } = await freshSetup();
    const events: string[] = [];
    const registry = new ProviderRegistry();
    let startingWhenResolved: boolean | undefined;
    registry.register({
      name: "mock",
      description: "a scripted model",
      create(model) {
        startingWhenResolved = events.includes("starting slow");
        return { spec: { provider: "mock", model }, model: new MockLanguageModelV4() };
      },
    });
    const setup = await setupAgentRun({
      root,
      latheHome: home,
      model: "mock:m",
      providers: registry,
      onMcpEvent: (event) => events.push(`${event.type} ${event.server}`),
    });
    await setup.engine.close();
    expect(startingWhenResolved).toBe(true);
  });

  it("are stopped when the model then cannot be used, and the model's error is the one thrown", async () => {
    const pidFile = path.join(root, "server.pid");
    await writeFile(path.join(home, "settings.json"), JSON.stringify(lingeringServer(pidFile)));
    const { setupAgentRun } = await freshSetup();
    const registry = new ProviderRegistry();
    let pid: number | undefined;
    let running: number[] = [];
    registry.register({
      name: "mock",
      description: "a model whose server is gone",
      async create() {
        // The server really runs by now (a slow provider gives it the time to be up).
        pid = await serverPid(pidFile);
        running = await processesWith(pidFile);
        throw new Error("the model's server is gone: start it again");
      },
    });
    await expect(
      setupAgentRun({ root, latheHome: home, model: "mock:m", providers: registry }),
    ).rejects.toThrow("the model's server is gone: start it again");
    expect(pid).toBeGreaterThan(0);
    // Seen running from outside while the model resolved; gone, all of it, once the setup failed.
    expect(running.length).toBeGreaterThan(0);
    expect(await allEnded(pidFile)).toBe(true);
  });
});
