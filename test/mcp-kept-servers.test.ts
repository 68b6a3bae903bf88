import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../src/main/engine/engine.ts";
import type { McpEvent } from "../src/main/engine/mcp/mcp-event.ts";
import { McpManager } from "../src/main/engine/mcp/mcp-manager.ts";
import { McpServerPool } from "../src/main/engine/mcp/mcp-server-pool.ts";
import { TrustStore } from "../src/main/engine/policy/trust-store.ts";
import { spawnerEnvironment } from "../src/main/engine/spawner/process-spawner.ts";
import type { Envelope } from "../src/main/engine/tools/envelope.ts";
import { outputOf } from "./support/envelope-of.ts";

/**
 * The daemon's kept MCP servers (McpServerPool) end to end: real stdio servers in the real OS
 * sandbox, each "command" a fresh Engine and McpManager, as `lathe call` runs them in the daemon.
 */

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCRIPTED = path.join(repo, "test/fixtures/scripted-mcp-server.ts");
const node = process.execPath;

let base: string;
let root: string;
let home: string;
let script: string;
let cleanups: Array<() => Promise<void>>;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-kept-"));
  root = path.join(base, "project");
  home = path.join(base, "home");
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(path.join(base, "logs"));
  script = path.join(base, "script.json");
  const tool = (name: string): Record<string, unknown> => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties: { ms: { type: "number" } } },
  });
  await writeFile(
    script,
    JSON.stringify({
      tools: [
        ...["count", "slow", "notify_later"].map(tool),
        {
          name: "read_file",
          description: "Reads a file.",
          inputSchema: { type: "object", properties: { path: { type: "string" } } },
        },
      ],
      listLog: path.join(base, "logs", "lists.log"),
      envFile: path.join(base, "logs", "env.json"),
    }),
  );
  await writeSettings({});
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  delete process.env.LATHE_KEPT_TEST;
  await rm(base, { recursive: true, force: true });
});

async function writeSettings(
  more: Record<string, unknown>,
  folder = home,
  server: Record<string, unknown> = { command: node, args: [SCRIPTED, script] },
): Promise<void> {
  const file = folder === home ? path.join(home, "settings.json") : path.join(folder, ".lathe/settings.json");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: { scripted: server },
      ...more,
      // Where the server writes its listing log, from whichever workspace it serves.
      sandbox: { allowWrite: [path.join(base, "logs")], ...(more.sandbox as object | undefined) },
    }),
  );
}

/** `base/bin/kept-launcher`: a script that starts the scripted server (`version` only tells copies apart). */
async function writeLauncher(version: string): Promise<void> {
  const file = path.join(base, "bin", "kept-launcher");
  await mkdir(path.dirname(file), { recursive: true });
  // Replaced as an installer does: a new file moved over the old one.
  await writeFile(`${file}.new`, `#!/bin/sh\n# ${version}\nexec ${node} ${SCRIPTED} ${script}\n`, {
    mode: 0o755,
  });
  await rename(`${file}.new`, file);
}

/** Replace a file as editors, git and credential tools do: a new file renamed over the old one. */
async function replaceFile(file: string, text: string): Promise<void> {
  await writeFile(`${file}.new`, text);
  await rename(`${file}.new`, file);
}

function gitConfig(): string {
  return path.join(root, ".git", "config");
}

function newPool(idleMs = 60_000): McpServerPool {
  const pool = new McpServerPool({ idleMs, max: 4, environment: spawnerEnvironment });
  cleanups.push(() => pool.close());
  return pool;
}

interface Command {
  engine: Engine;
  manager: McpManager;
  events: McpEvent[];
  call(tool: string, args?: unknown, signal?: AbortSignal): Promise<Envelope>;
  pid(): number | undefined;
  close(): Promise<void>;
}

/** One command: an engine for `folder` and its MCP servers (kept ones taken from `pool`), started and applied. */
async function command(pool: McpServerPool | undefined, folder = root): Promise<Command> {
  const engine = await Engine.create({ root: folder, latheHome: home, extensions: false });
  expect(engine.sandboxStatus.active, "these tests need the OS sandbox (bubblewrap)").toBe(true);
  const events: McpEvent[] = [];
  const manager = new McpManager({
    registry: engine.registry,
    servers: engine.policy.mcpServers,
    trust: new TrustStore(engine.latheHome),
    root: engine.root,
    latheHome: engine.latheHome,
    sandbox: engine.sandbox,
    onEvent: (e) => events.push(e),
    ...(pool ? { pool } : {}),
  });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await manager.close();
    await engine.close();
  };
  cleanups.push(close);
  manager.start();
  await manager.ready();
  manager.applyPendingChanges();
  return {
    engine,
    manager,
    events,
    async call(tool, args = {}, signal) {
      const session = await engine.openSession({ mode: "yolo" });
      try {
        return await session.call(tool, args, signal ? { signal } : {});
      } finally {
        await session.close();
      }
    },
    pid: () => manager.status()[0]?.pid,
    close,
  };
}

/** The names of the servers the pool keeps, longest kept first. */
function keptNames(pool: McpServerPool): string[] {
  return pool.keptFor().map((kept) => kept.name);
}

/** What an MCP tool answered, as text. */
function textOf(envelope: Envelope): string {
  return outputOf<{ content: string }>(envelope).content;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The temp folder the OS sandbox gave the server that started last (its TMPDIR). */
function serverTempFolder(): string {
  const env = JSON.parse(readFileSync(path.join(base, "logs", "env.json"), "utf8")) as { TMPDIR: string };
  return env.TMPDIR;
}

function listings(): number {
  const file = path.join(base, "logs", "lists.log");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/** One command that calls `count` once (answered "1") and ends, leaving its server kept: its pid. */
async function keptAfterOneCommand(pool: McpServerPool): Promise<number> {
  const first = await command(pool);
  expect(textOf(await first.call("count"))).toBe("1");
  const pid = first.pid() as number;
  await first.close();
  expect(alive(pid)).toBe(true);
  expect(keptNames(pool)).toEqual(["scripted"]);
  return pid;
}

describe("MCP servers kept running between commands (the daemon's pool)", () => {
  it("ends a server with its command without a pool, and with one keeps it for the next command, which uses the same process", async () => {
    // Control: without a pool, each command starts its own server, which ends with it.
    const plain = await command(undefined);
    expect(textOf(await plain.call("count"))).toBe("1");
    const plainPid = plain.pid() as number;
    await plain.close();
    expect(alive(plainPid)).toBe(false);
    const again = await command(undefined);
    expect(textOf(await again.call("count"))).toBe("1");
    await again.close();
    expect(listings()).toBe(2);

    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);

    const second = await command(pool);
    expect(second.events.filter((e) => e.type === "starting")).toEqual([]);
    expect(second.events.find((e) => e.type === "reused")).toMatchObject({
      server: "scripted",
      layer: "global",
      pid,
    });
    expect(second.pid()).toBe(pid);
    // The same process: what it held in memory is still there, and its tools were not listed again.
    expect(textOf(await second.call("count"))).toBe("2");
    expect(listings()).toBe(3);
    expect(second.manager.logTail("scripted", 5).join("\n")).toMatch(/using the server kept running/);
    await second.close();

    const temp = serverTempFolder();
    expect(temp).toContain("mcp-scripted");
    expect(existsSync(temp)).toBe(true);
    await pool.close();
    await until("the kept server has ended", () => !alive(pid));
    expect(keptNames(pool)).toEqual([]);
    // Its sandbox's temp folder went with it.
    expect(existsSync(temp)).toBe(false);
  });

  it.each([
    {
      name: "the caller's environment changed",
      change: () => {
        process.env.LATHE_KEPT_TEST = "another value";
        return Promise.resolve();
      },
    },
    {
      name: "the sandbox settings changed (a host it may reach)",
      change: () => writeSettings({ sandbox: { allowNetwork: ["example.com"] } }),
    },
    {
      // What it runs is the file its command line names (a person fixing their server's code):
      // the kept process would go on running the old code.
      name: "a file its command line names was edited",
      change: async () => {
        const scripted = JSON.parse(readFileSync(script, "utf8")) as Record<string, unknown>;
        await writeFile(script, JSON.stringify({ ...scripted, stderr: "edited\n" }));
      },
    },
    {
      // A program found on its PATH, upgraded in place (a new version installed over it).
      name: "the program it starts from its PATH was replaced",
      before: async () => {
        await writeLauncher("v1");
        await writeSettings({}, home, {
          command: "kept-launcher",
          args: [],
          env: { PATH: `${path.join(base, "bin")}:/usr/bin:/bin` },
        });
      },
      change: () => writeLauncher("v2"),
    },
    {
      // Its sandbox held the old folder: the new one would be read-only to it (EROFS).
      name: "the workspace was removed and made again",
      change: async () => {
        await rm(root, { recursive: true, force: true });
        await mkdir(root);
      },
    },
    {
      // git rewrites its config by renaming a new file over it (git config, git remote add):
      // the read-only mount on the old file is gone from the kept server's view.
      name: "git replaced the repository's .git/config",
      before: () =>
        mkdir(path.join(root, ".git"), { recursive: true }).then(() => replaceFile(gitConfig(), "[core]\n")),
      change: () => replaceFile(gitConfig(), "[core]\n\tbare = false\n"),
    },
  ])("starts afresh when $name, and stops the kept server nothing will use", async ({ before, change }) => {
    await before?.();
    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);

    await change();
    const second = await command(pool);
    expect(second.events.filter((e) => e.type === "reused")).toEqual([]);
    expect(second.events.filter((e) => e.type === "starting")).toHaveLength(1);
    expect(textOf(await second.call("count"))).toBe("1");
    expect(second.pid()).not.toBe(pid);
    await until("the outdated kept server has ended", () => !alive(pid));
  });

  it("never lets a kept server read a sandbox.denyRead file replaced since it started", async () => {
    const secret = path.join(base, "credentials");
    await replaceFile(secret, "old secret\n");
    await writeSettings({ sandbox: { denyRead: [secret] } });
    const pool = newPool();
    const first = await command(pool);
    const denied = await first.call("read_file", { path: secret });
    expect(denied.type).toBe("error");
    expect(JSON.stringify(denied)).not.toContain("old secret");
    const pid = first.pid() as number;
    await first.close();
    expect(alive(pid)).toBe(true);

    // A credential tool rewrites the file (a new file renamed over it): the file itself is readable
    // outside Lathe (control), and the kept server's mask was on the old one.
    await replaceFile(secret, "new secret\n");
    expect(readFileSync(secret, "utf8")).toBe("new secret\n");
    const second = await command(pool);
    expect(second.events.filter((e) => e.type === "reused")).toEqual([]);
    const again = await second.call("read_file", { path: secret });
    expect(again.type).toBe("error");
    expect(JSON.stringify(again)).not.toContain("new secret");
    await until("the kept server that could read it has ended", () => !alive(pid));
  });

  it("never hands a server of one folder to another folder's command", async () => {
    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);

    const other = path.join(base, "other");
    await mkdir(other);
    const elsewhere = await command(pool, other);
    expect(elsewhere.events.filter((e) => e.type === "reused")).toEqual([]);
    expect(textOf(await elsewhere.call("count"))).toBe("1");
    expect(elsewhere.pid()).not.toBe(pid);
    await elsewhere.close();
    // The first folder's server is still kept for it.
    expect(alive(pid)).toBe(true);
    const back = await command(pool);
    expect(textOf(await back.call("count"))).toBe("2");
  });

  it("does not keep a server whose call was stopped while it was still working on it", async () => {
    const pool = newPool();
    const first = await command(pool);
    const stop = new AbortController();
    const pending = first.call("slow", { ms: 5_000 }, stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop.abort();
    await pending;
    const pid = first.pid() as number;
    await first.close();
    await until("the server with an abandoned call has ended", () => !alive(pid));
    expect(keptNames(pool)).toEqual([]);
  });

  it("lists the tools again when the server announced a change while it was kept", async () => {
    // Its tools come from a file its command line does not name (its own data): a change there
    // is no new code, so the kept server is used, and it says its tools changed.
    const tools = path.join(base, "tools.json");
    const scripted = JSON.parse(readFileSync(script, "utf8")) as { tools: Array<{ name: string }> };
    await writeFile(tools, JSON.stringify({ tools: scripted.tools }));
    await writeFile(script, JSON.stringify({ ...scripted, toolsFrom: tools }));
    const pool = newPool();
    const first = await command(pool);
    expect(textOf(await first.call("notify_later", { ms: 300 }))).toBe("will notify");
    await first.close();
    expect(keptNames(pool)).toEqual(["scripted"]);
    const listed = listings();
    // The tool list changes, and the kept server says so while no command uses it.
    scripted.tools.push({ ...scripted.tools[0], name: "added" } as { name: string });
    await writeFile(tools, JSON.stringify({ tools: scripted.tools }));
    await new Promise((resolve) => setTimeout(resolve, 600));

    const second = await command(pool);
    expect(second.events.find((e) => e.type === "reused")).toBeDefined();
    expect(listings()).toBe(listed + 1);
    expect(second.engine.registry.get("added")).toBeDefined();
  });

  it("stops a kept server its folder's settings no longer start, at the next command there", async () => {
    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);
    await writeFile(path.join(home, "settings.json"), JSON.stringify({}));
    const next = await command(pool);
    expect(next.manager.status()).toEqual([]);
    await until("the server removed from the settings has ended", () => !alive(pid));
    expect(keptNames(pool)).toEqual([]);
  });

  it("restarts a server it took that then ends, in a sandbox of its own, and removes the ended one's temp folder", async () => {
    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);
    const keptTemp = serverTempFolder();

    const second = await command(pool);
    expect(second.pid()).toBe(pid);
    process.kill(pid, "SIGKILL");
    await until("the server has been started again", () => {
      const now = second.pid();
      return now !== undefined && now !== pid;
    });
    await until("the ended server's temp folder is removed", () => !existsSync(keptTemp));
    expect(textOf(await second.call("count"))).toBe("1");
    const ownTemp = serverTempFolder();
    expect(ownTemp).not.toBe(keptTemp);
    expect(existsSync(ownTemp)).toBe(true);
  });

  it("drops a kept server that ends, and starts the next command's afresh", async () => {
    const pool = newPool();
    const pid = await keptAfterOneCommand(pool);
    process.kill(pid, "SIGKILL");
    await until("the pool has dropped the ended server", () => keptNames(pool).length === 0);

    const second = await command(pool);
    expect(second.events.filter((e) => e.type === "reused")).toEqual([]);
    expect(textOf(await second.call("count"))).toBe("1");
  });

  it("stops a kept server no command took within its idle time", async () => {
    const pool = newPool(500);
    const pid = await keptAfterOneCommand(pool);
    await until("the idle kept server has ended", () => !alive(pid));
    expect(keptNames(pool)).toEqual([]);
  });
});
