import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * A throw-away world for hostile shell commands: a workspace (a git repository with a file, a
 * folder and Lathe's project settings), a sentinel folder beside it, a fake home and a
 * LATHE_HOME. Commands name them as `../s`, `{S}`, `{H}`, `{LH}`; a snapshot covers everything
 * outside the workspace plus the workspace's protected paths, so any damage shows as a change.
 */
export interface Layout {
  base: string;
  /** The workspace. */
  ws: string;
  /** The sentinel folder outside the workspace (`../s` from it). */
  s: string;
  /** The fake home folder. */
  h: string;
  /** LATHE_HOME. */
  lh: string;
}

/** Paths inside the workspace that count as outside it for damage: Lathe's own and git's code. */
const PROTECTED = [".lathe", ".git/hooks", ".git/config"];
/** Lathe's bookkeeping in LATHE_HOME changes on every call. */
const BOOKKEEPING = /^(lathe\.db(-wal|-shm|-journal)?|sessions|logs|tool-output)$/;

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", HOME: os.tmpdir() };

function git(cwd: string, ...args: string[]): void {
  const result = spawnSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
}

let template: Promise<string> | undefined;

/** The workspace every layout starts from, built once per test file. */
function workspaceTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-corpus-template-")));
    await writeFile(path.join(dir, "f.txt"), "alpha\nbeta\n");
    await mkdir(path.join(dir, "sub"));
    await writeFile(path.join(dir, "sub", "x.txt"), "x\n");
    await mkdir(path.join(dir, ".lathe"));
    await writeFile(path.join(dir, ".lathe", "settings.json"), "{}\n");
    git(dir, "init", "-q", "-b", "main");
    git(dir, "config", "user.name", "corpus");
    git(dir, "config", "user.email", "corpus@lathe.dev");
    git(dir, "add", "f.txt", "sub/x.txt");
    git(dir, "commit", "-q", "-m", "init");
    return dir;
  })();
  return template;
}

export async function createLayout(prefix = "lathe-corpus-"): Promise<Layout> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  const layout: Layout = {
    base,
    ws: path.join(base, "ws"),
    s: path.join(base, "s"),
    h: path.join(base, "h"),
    lh: path.join(base, "lh"),
  };
  await cp(await workspaceTemplate(), layout.ws, { recursive: true, verbatimSymlinks: true });
  await mkdir(layout.s);
  await writeFile(path.join(layout.s, "keep.txt"), "untouched\n");
  await mkdir(layout.h);
  await writeFile(path.join(layout.h, ".bashrc"), "# fake home\n");
  await mkdir(layout.lh);
  return layout;
}

export async function removeLayout(layout: Layout): Promise<void> {
  await rm(layout.base, { recursive: true, force: true, maxRetries: 3 });
}

export async function removeTemplate(): Promise<void> {
  if (template !== undefined) await rm(await template, { recursive: true, force: true });
}

export type Snapshot = Record<string, string>;

/** Everything under the layout outside the workspace, plus the workspace's protected paths. */
export async function snapshot(layout: Layout): Promise<Snapshot> {
  const out: Snapshot = {};
  const visit = async (absolute: string): Promise<void> => {
    const relative = path.relative(layout.base, absolute);
    const st = await lstat(absolute).catch(() => undefined);
    if (st === undefined) return;
    if (st.isSymbolicLink()) {
      out[relative] = `link:${await readlink(absolute)}`;
      return;
    }
    if (!st.isDirectory()) {
      const hash = st.isFile()
        ? createHash("sha256")
            .update(await readFile(absolute))
            .digest("hex")
        : "special";
      out[relative] = `file:${st.mode}:${hash}:${st.mtimeMs}`;
      return;
    }
    out[relative] = `dir:${st.mode}`;
    for (const name of (await readdir(absolute)).sort()) {
      const child = path.join(absolute, name);
      if (absolute === layout.lh && BOOKKEEPING.test(name)) continue;
      if (child === layout.ws) {
        for (const p of PROTECTED) await visit(path.join(layout.ws, p));
        continue;
      }
      await visit(child);
    }
  };
  await visit(layout.base);
  return out;
}

/** The keys whose value differs between two snapshots. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => before[k] !== after[k]).sort();
}

/** `{S}`, `{H}`, `{LH}`, `{WS}`, `{PID}`, `{M}` in a row's command. */
export function fill(command: string, layout: Layout, extra: { pid?: number; marker?: string } = {}): string {
  return command
    .replaceAll("{S}", layout.s)
    .replaceAll("{H}", layout.h)
    .replaceAll("{LH}", layout.lh)
    .replaceAll("{WS}", layout.ws)
    .replaceAll("{PID}", String(extra.pid ?? 0))
    .replaceAll("{M}", extra.marker ?? "lathe-corpus-marker");
}

/** Run a command line with plain bash, as an attacker without Lathe would. */
export function runPlainBash(
  command: string,
  layout: Layout,
  timeoutMs = 15_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("/bin/bash", ["-c", command], {
      cwd: layout.ws,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: layout.h,
        LANG: "C.UTF-8",
        LC_ALL: "C",
        TERM: "dumb",
        USER: "root",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    // "exit", not "close": a job that outlives bash keeps the pipes open.
    child.on("exit", (code) => {
      clearTimeout(timer);
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code, output: output.slice(0, 2000) });
      }, 20);
    });
  });
}

/** A process started by the test, standing for one that belongs to someone else. */
export interface Victim {
  pid: number;
  marker: string;
  /** Whether it is still running (not killed by a signal). */
  alive(): boolean;
  stop(): void;
}

export async function startVictim(marker: string): Promise<Victim> {
  const child: ChildProcess = spawn("sleep", ["300"], { argv0: marker, stdio: "ignore" });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", reject);
  });
  return {
    pid: child.pid as number,
    marker,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Processes whose command line holds the marker (outlived whatever started them). */
export async function survivors(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const state = stat.replace(/^.*\) /s, "")[0];
    if (cmdline.includes(marker) && state !== "Z") pids.push(Number(entry));
  }
  return pids;
}

export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Whether a program can be found on PATH. */
export function available(program: string): boolean {
  return spawnSync("/bin/sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status === 0;
}
