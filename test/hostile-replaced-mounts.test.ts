import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine, type Envelope } from "../src/main/engine/index.ts";
import { machineSandbox } from "../src/main/engine/sandbox/sandbox-availability.ts";
import type { Session } from "../src/main/engine/session/session.ts";

// A long-running confined process and a protected path replaced under it. The OS sandbox holds
// `.git/config` read-only (and a `sandbox.denyRead` file hidden) by binding the file that is
// there when the process starts; when something outside renames a new file over it — git does,
// for `git config`, `git remote add`, `git push -u` — the kernel drops that mount from the
// process's view, and the process reaches the new file through the writable workspace. Each
// row first shows that in plain bubblewrap with the same binds (the positive control: the
// damage happens), then that Lathe stops the process as soon as the path changes, with
// filesystem asserts. The attacker here waits for the swap and acts a moment later: one built
// to race it at full speed could get a write in within the guard's reaction time (about a
// millisecond), which README's Sandbox section says.

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITER = path.join(repo, "test/fixtures/writer-mcp-server.ts");
const machine = await machineSandbox();
if (!machine.active) console.log(`skipped: this machine has no OS sandbox (${machine.reason})`);

let base: string;
let root: string;
let home: string;
let outside: string;
let secret: string;
let engine: Engine | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-replaced-")));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  outside = path.join(base, "outside");
  for (const dir of [root, home, outside]) await mkdir(dir, { recursive: true });
  execFileSync("git", ["init", "-q", root]);
  secret = path.join(outside, "credentials");
  await writeFile(secret, "old secret\n");
});

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await rm(base, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const gitConfig = (): string => path.join(root, ".git/config");

/** What git does to its config when a person runs `git config` in a terminal: a new file renamed over it. */
function gitRewritesItsConfig(): void {
  execFileSync("git", ["-C", root, "config", "user.name", "Person"]);
}

/** A credential tool saving anew: a new file renamed over the old one. */
async function credentialsSavedAnew(): Promise<void> {
  await writeFile(`${secret}.new`, "new secret\n");
  await rename(`${secret}.new`, secret);
}

/** Whether `git status` now runs the fsmonitor command that creates `marker`. */
function gitStatusRunsHook(marker: string): boolean {
  spawnSync("git", ["status", "--short"], { cwd: root, stdio: "ignore", timeout: 10_000 });
  return existsSync(marker);
}

/**
 * A script that waits for `file` to name another file, waits a moment, then does `act` to "$f".
 * The path is spelled in base64, so the parser's policy (the first wall, which refuses a
 * command naming a protected path) cannot see it: these rows are about the OS sandbox below it.
 */
function afterTheSwap(file: string, act: string): string {
  const hidden = Buffer.from(file).toString("base64");
  return `f=$(echo ${hidden} | base64 -d); i=$(stat -c %i "$f"); echo waiting; while [ "$(stat -c %i "$f" 2>/dev/null)" = "$i" ]; do sleep 0.05; done; sleep 0.3; ${act}`;
}

const appendFsmonitor = (marker: string): string =>
  `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' >> "$f" && echo appended`;

/**
 * The control: `script` in plain bubblewrap, the workspace writable, `.git/config` bound
 * read-only and the secret covered by an empty file, as the sandbox binds them; `change` made
 * outside once it runs. Resolves with what it printed.
 */
async function inPlainBubblewrap(script: string, change: () => void | Promise<void>): Promise<string> {
  const child = spawn(
    "bwrap",
    [
      "--dev-bind",
      "/",
      "/",
      "--bind",
      root,
      root,
      "--ro-bind",
      gitConfig(),
      gitConfig(),
      "--ro-bind",
      "/dev/null",
      secret,
      "--chdir",
      root,
      "bash",
      "-c",
      script,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const closed = new Promise((resolve) => child.once("close", resolve));
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  while (!out.includes("waiting")) await sleep(20);
  await change();
  await closed;
  return out;
}

async function openEngine(settings: Record<string, unknown>): Promise<Session> {
  await writeFile(
    path.join(home, "settings.json"),
    JSON.stringify({
      permissions: [{ permission: "bash", pattern: "*", action: "allow" }],
      shell: [{ cmd: "base64" }, { cmd: "stat" }],
      ...settings,
    }),
  );
  engine = await Engine.create({ root, latheHome: home, bundledPluginsDir: path.join(base, "none") });
  expect(engine.sandboxStatus.active).toBe(true);
  await engine.settleExtensions();
  return engine.openSession({ mode: "yolo", approver: async () => "once" as const });
}

const text = (e: Envelope): string =>
  e.type === "error" ? e.error_text : JSON.stringify((e as { data: unknown }).data);

describe.skipIf(!machine.active)("a protected path replaced under a running confined process", () => {
  it("bash: git rewrites .git/config while a command waits to write it — the command is stopped", async () => {
    const marker = path.join(outside, "control-ran");
    const control = await inPlainBubblewrap(
      afterTheSwap(".git/config", appendFsmonitor(marker)),
      gitRewritesItsConfig,
    );
    expect(control, "control: in plain bubblewrap the write lands").toContain("appended");
    expect(gitStatusRunsHook(marker), "control: git then runs the planted command").toBe(true);

    // Fresh repository for Lathe.
    await rm(path.join(root, ".git"), { recursive: true });
    execFileSync("git", ["init", "-q", root]);
    const session = await openEngine({});
    const hooked = path.join(outside, "lathe-ran");
    const call = session.call("bash", {
      command: afterTheSwap(".git/config", appendFsmonitor(hooked)),
      timeout_ms: 20_000,
    });
    await sleep(1000);
    const started = Date.now();
    gitRewritesItsConfig();
    const envelope = await call;
    expect(Date.now() - started, "stopped at once, not at its timeout").toBeLessThan(5000);
    expect(envelope.type).toBe("error");
    expect(text(envelope)).toContain(
      "Lathe stopped the command and everything it started: .git/config (git's configuration) was replaced outside the sandbox while it ran",
    );
    expect(text(envelope)).not.toContain("appended");
    const config = readFileSync(gitConfig(), "utf8");
    expect(config, "the person's own change is kept").toContain("name = Person");
    expect(config).not.toContain("fsmonitor");
    expect(gitStatusRunsHook(hooked)).toBe(false);

    // The next command is confined with the new file held.
    const again = await session.call("bash", {
      command: `f=$(echo ${Buffer.from(".git/config").toString("base64")} | base64 -d); ${appendFsmonitor(hooked)}`,
    });
    expect(text(again)).not.toContain("appended");
    expect(readFileSync(gitConfig(), "utf8")).not.toContain("fsmonitor");
  });

  it("bash: a sandbox.denyRead file saved anew while a command waits to read it — nothing is read", async () => {
    const control = await inPlainBubblewrap(afterTheSwap(secret, `cat "$f"`), credentialsSavedAnew);
    expect(control, "control: in plain bubblewrap the new secret is read").toContain("new secret");

    await writeFile(secret, "old secret\n");
    const session = await openEngine({ sandbox: { denyRead: [secret] } });
    const call = session.call("bash", { command: afterTheSwap(secret, `cat "$f"`), timeout_ms: 20_000 });
    await sleep(1000);
    await credentialsSavedAnew();
    const envelope = await call;
    expect(envelope.type).toBe("error");
    expect(text(envelope)).toContain(
      "(a path hidden from confined processes) was replaced outside the sandbox",
    );
    expect(text(envelope)).not.toContain("secret\n");
    expect(JSON.stringify(envelope)).not.toContain("new secret");
  });

  it("an MCP server: git rewrites .git/config while it runs — it is stopped, said, and started afresh", async () => {
    const control = await inPlainBubblewrap(
      afterTheSwap(".git/config", appendFsmonitor(path.join(outside, "control-ran"))),
      gitRewritesItsConfig,
    );
    expect(control, "control: in plain bubblewrap the write lands").toContain("appended");
    await rm(path.join(root, ".git"), { recursive: true });
    execFileSync("git", ["init", "-q", root]);

    const marker = path.join(outside, "mcp-ran");
    const session = await openEngine({
      mcpServers: { writer: { command: process.execPath, args: [WRITER] } },
    });
    const manager = engine?.extensions?.mcp;
    const pid = manager?.status()[0]?.pid;
    expect(pid, "the server runs").toBeDefined();
    const planted = `[core]\n\tfsmonitor = touch ${marker}\n`;
    // Before: the mount holds.
    expect(text(await session.call("write_file", { path: gitConfig(), content: planted }))).toMatch(
      /error E(ROFS|BUSY|ACCES|PERM)/,
    );

    gitRewritesItsConfig();
    const deadline = Date.now() + 10_000;
    while (manager?.status()[0]?.pid === pid && Date.now() < deadline) await sleep(20);
    const status = manager?.status()[0];
    expect(status?.pid, "the server that could write the new file is gone").not.toBe(pid);
    expect(`${status?.lastError ?? ""}`).toContain(
      "Lathe stopped the server: " +
        `${gitConfig()} (git's configuration) was replaced outside the sandbox while it ran`,
    );
    // Its replacement holds the new file read-only (or is still starting: then the call fails).
    await sleep(1500);
    const after = await session.call("write_file", { path: gitConfig(), content: planted });
    expect(text(after)).not.toMatch(/^wrote/);
    expect(readFileSync(gitConfig(), "utf8")).toContain("name = Person");
    expect(gitStatusRunsHook(marker)).toBe(false);
  });

  it("an MCP server: a protected file missing when it started appears — it is stopped and said", async () => {
    // Control: a plain process in the same sandbox creates it (nothing could be mounted there).
    const commondir = path.join(root, ".git/commondir");
    const control = await inPlainBubblewrap(
      `echo waiting; printf '../x\\n' > ${commondir} && echo created`,
      () => undefined,
    );
    expect(control).toContain("created");
    expect(existsSync(commondir), "control: the file is there").toBe(true);
    await rm(commondir);

    const session = await openEngine({
      mcpServers: { writer: { command: process.execPath, args: [WRITER] } },
    });
    const manager = engine?.extensions?.mcp;
    const pid = manager?.status()[0]?.pid;
    expect(pid, "the server runs").toBeDefined();
    await session.call("write_file", { path: commondir, content: "../../outside/evil\n" });
    const deadline = Date.now() + 10_000;
    while (manager?.status()[0]?.pid === pid && Date.now() < deadline) await sleep(20);
    expect(manager?.status()[0]?.pid, "the server is gone").not.toBe(pid);
    expect(`${manager?.status()[0]?.lastError ?? ""}`).toContain(
      `Lathe stopped the server: ${commondir} (git's configuration) was created while it ran (by it, or outside the sandbox)`,
    );
  });
});
