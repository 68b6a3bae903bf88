// bash: (1) time to the first byte of `echo hi` through the whole engine pipeline (pty, bash,
// envelope) against the first byte of a plain child_process.spawn of bash, median of 30; goal
// ≤ 30 ms; and the same call in the OS sandbox (bubblewrap) against it without, in the same run;
// goal: ≤ 30 ms in the sandbox. (2) peak resident memory while a command prints 200 MB against while it prints 2 MB
// (sampled every 10 ms), of the host and its process spawner together (the spawner writes the
// sidecar); goal: flat, the output streams to the sidecar file instead of memory.
// (3) throughput through the pty into the sidecar, against reading the same command's pipe.
// (4) the process spawner's resident memory during a confined bash call of the CLI bundle, beside
// a bare Node process's. (5) the look for git repositories a command planted (planted-repos.ts),
// which runs before and after every confined command, in a workspace holding a copy of the project's own
// src/ and test/, beside a whole confined `true` call there.
// Run alone with `node bench/bash.bench.ts`.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mkdir, writeFile } from "node:fs/promises";
import { bashTool } from "../src/main/engine/builtin/bash.ts";
import { Engine, type Envelope } from "../src/main/engine/index.ts";
import type { Session } from "../src/main/engine/session/session.ts";
import { processSpawner } from "../src/main/engine/spawner/process-spawner.ts";
import { ensureFreshCliBundle } from "./lib/fresh-cli-bundle.ts";
import { compare, heading, median, skipped } from "./lib/report.ts";

const RUNS = 30;
const LATHE_BIN = fileURLToPath(new URL("../bin/lathe.mjs", import.meta.url));
const BIG = 200_000_000;
const SMALL = 2_000_000;
const MB = 1_000_000;

const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-bash-"));
const engine = await Engine.create({ root: dir, latheHome: path.join(dir, ".lathe-home") });
if (!engine.registry.get("bash")) engine.registry.register(bashTool, { layer: "builtin", kind: "builtin" });
const session = await engine.openSession({ mode: "yolo" });
// The same workspace without the OS sandbox (`echo hi` is provably read-only, so it runs unasked).
const offHome = path.join(os.tmpdir(), `lathe-bench-bash-off-${process.pid}`);
await mkdir(offHome, { recursive: true });
await writeFile(path.join(offHome, "settings.json"), JSON.stringify({ sandbox: { enabled: false } }));
const offEngine = await Engine.create({ root: dir, latheHome: offHome, extensions: false });
const offSession = await offEngine.openSession({ mode: "yolo" });

async function bash(command: string, on: Session = session): Promise<Envelope> {
  const envelope = await on.call("bash", { command, timeout_ms: 600_000 });
  if (envelope.type !== "output") throw new Error(`bash failed: ${envelope.error_text}`);
  return envelope;
}

/** Time from spawning `bash -c <command>` to its first byte of stdout. */
function spawnFirstByte(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn("/bin/bash", ["-c", command]);
    let first: number | undefined;
    child.stdout.once("data", () => (first = performance.now() - t0));
    child.on("error", reject);
    child.on("close", () => (first === undefined ? reject(new Error("no output")) : resolve(first)));
  });
}

/** Bytes per second of reading a command's stdout through a plain pipe. */
function spawnThroughput(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn("/bin/bash", ["-c", command]);
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => (bytes += chunk.length));
    child.on("error", reject);
    child.on("close", () => resolve(bytes / ((performance.now() - t0) / 1000)));
  });
}

/** Resident memory (bytes) of a process, from /proc; undefined when it cannot be read. */
function rssOf(pid: number): number | undefined {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** The process spawner's resident memory (bytes), from /proc; 0 where there is none to read. */
function spawnerRss(): number {
  const pid = processSpawner().pid;
  return pid === undefined ? 0 : (rssOf(pid) ?? 0);
}

/** Resident memory of this process and its process spawner together. */
const rss = (): number => process.memoryUsage().rss + spawnerRss();

/** Peak RSS (bytes; see `rss`) while `fn` runs, sampled every 10 ms, and how long it took. */
async function peakRss(fn: () => Promise<unknown>): Promise<{ peak: number; before: number; ms: number }> {
  globalThis.gc?.();
  const before = rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 10);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  return { peak: Math.max(peak, rss()), before, ms };
}

async function sidecarBytes(envelope: Envelope): Promise<number> {
  const file = envelope.metadata.output_path;
  if (!file) throw new Error("expected a sidecar file");
  return (await stat(file)).size;
}

// ---- (1) time to first byte ----------------------------------------------------------------
const echo = "echo hi";
const sandboxed: number[] = [];
const unconfined: number[] = [];
const theirs: number[] = [];
const timed = async (on: Session): Promise<number> => {
  const t0 = performance.now();
  await bash(echo, on);
  return performance.now() - t0;
};
await bash(echo);
await bash(echo, offSession);
await spawnFirstByte(echo);
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so both see the same machine load.
  if (engine.sandboxStatus.active) sandboxed.push(await timed(session));
  unconfined.push(await timed(offSession));
  theirs.push(await spawnFirstByte(echo));
}
heading(`bash time to first byte (\`${echo}\`, median of ${RUNS})`);
const ttfb = median(unconfined);
compare({
  what: "first byte",
  ours: { label: "engine call without the sandbox, whole envelope", value: ttfb },
  theirs: { label: "child_process.spawn first byte", value: median(theirs) },
  goal: "≤ 30 ms",
  met: ttfb <= 30,
});
if (engine.sandboxStatus.active) {
  const inside = median(sandboxed);
  compare({
    what: "first byte in the OS sandbox",
    ours: { label: `engine call in the sandbox (${engine.sandboxStatus.mechanism})`, value: inside },
    theirs: { label: "the same call without it", value: ttfb },
    goal: "≤ 30 ms in the sandbox",
    met: inside <= 30,
  });
  console.log(`  the sandbox adds ${(inside - ttfb).toFixed(1)} ms per call (median to median)`);
} else {
  skipped("first byte in the OS sandbox", `the sandbox is not active here: ${engine.sandboxStatus.reason}`);
}

// ---- (5) the look for planted repositories after each confined command -----------------------
if (engine.sandboxStatus.active) {
  const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const copy = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-planted-"));
  spawnSync("cp", ["-r", path.join(project, "src"), path.join(project, "test"), copy]);
  spawnSync("git", ["init", "-q", copy]);
  const files = Number(
    spawnSync("bash", ["-c", `find ${copy} -path '*/.git' -prune -o -type f -print | wc -l`]).stdout,
  );
  const copyEngine = await Engine.create({ root: copy, latheHome: path.join(dir, ".lathe-home") });
  const copySession = await copyEngine.openSession({ mode: "yolo" });
  const { watchRepos } = await import("../src/main/engine/sandbox/planted-repos.ts");
  const calls: number[] = [];
  const looks: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await bash("true", copySession);
    calls.push(performance.now() - t0);
    const t1 = performance.now();
    await (await watchRepos(copy)).disarm();
    looks.push(performance.now() - t1);
  }
  heading(
    `the look for planted git repositories before and after a confined command (a workspace of ${files} files)`,
  );
  compare({
    what: "median of 20",
    ours: { label: "the look (two walks, and a read of each .git)", value: median(looks), unit: "ms" },
    theirs: { label: "a whole confined `true` call there", value: median(calls), unit: "ms" },
  });
  // The same with an ignored node_modules of 500 packages (3,500 folders, 20,000 files): the look
  // goes through the folders there too (ignored-repositories.ts), after the first time with one
  // lstat per folder.
  await writeFile(path.join(copy, ".gitignore"), "node_modules/\n");
  for (let p = 0; p < 500; p++)
    for (const sub of ["lib", "dist", "src/a", "src/b", "types"]) {
      const folder = path.join(copy, "node_modules", `pkg${p}`, sub);
      await mkdir(folder, { recursive: true });
      await Promise.all(Array.from({ length: 8 }, (_, f) => writeFile(path.join(folder, `f${f}.js`), "x")));
    }
  const ignoredCalls: number[] = [];
  const ignoredLooks: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await bash("true", copySession);
    ignoredCalls.push(performance.now() - t0);
    const t1 = performance.now();
    await (await watchRepos(copy)).disarm();
    ignoredLooks.push(performance.now() - t1);
  }
  heading("the same look with an ignored node_modules of 3,500 folders and 20,000 files beside it");
  compare({
    what: "median of 20",
    ours: { label: "the look, node_modules' folders included", value: median(ignoredLooks), unit: "ms" },
    theirs: { label: "a whole confined `true` call there", value: median(ignoredCalls), unit: "ms" },
  });
  await copyEngine.close();
  await rm(copy, { recursive: true, force: true });
}

// ---- (2) peak memory and (3) throughput --------------------------------------------------
const print = (bytes: number): string => `head -c ${bytes} /dev/zero | tr '\\0' a`;
const printLines = (bytes: number): string =>
  `yes 'a line of build output, as a compiler would print it' | head -c ${bytes}`;

// One run first so both measurements start from the same warm heap: the first large output
// grows the process once (V8 lets tens of MB of spent read buffers pile up before it collects
// them); what matters is that the peak does not grow with the size of the output after that.
const firstRss = rss();
await bash(print(20 * MB));
const warmRss = rss();
if (spawnerRss() === 0)
  console.log("  (the spawner's memory cannot be read here, without /proc: the host's alone is counted)");
const small = await peakRss(() => bash(print(SMALL)));
let bigBytes = 0;
const big = await peakRss(async () => (bigBytes = await sidecarBytes(await bash(print(BIG)))));
if (bigBytes !== BIG) throw new Error(`the sidecar holds ${bigBytes} bytes, not ${BIG}`);
heading(
  "bash peak resident memory (RSS of the host and its process spawner together) while a command prints",
);
const mib = (b: number): number => b / 1024 / 1024;
const ratio = big.peak / small.peak;
compare({
  what: "peak RSS",
  ours: { label: `printing ${BIG / MB} MB`, value: mib(big.peak), unit: "MiB" },
  theirs: { label: `printing ${SMALL / MB} MB`, value: mib(small.peak), unit: "MiB" },
  goal: "flat (ratio ≤ 1.1)",
  met: ratio <= 1.1,
});
console.log(
  `  RSS before any large output ${mib(firstRss).toFixed(1)} MiB, after a first 20 MB one ${mib(warmRss).toFixed(1)} MiB`,
);
console.log(
  `  growth over the RSS before each call: ${mib(big.peak - big.before).toFixed(1)} MiB for ${BIG / MB} MB, ${mib(small.peak - small.before).toFixed(1)} MiB for ${SMALL / MB} MB`,
);

heading("bash throughput into the sidecar file");
let lineBytes = 0;
const lines = await peakRss(async () => (lineBytes = await sidecarBytes(await bash(printLines(BIG)))));
if (lineBytes !== BIG) throw new Error(`the sidecar holds ${lineBytes} bytes, not ${BIG}`);
compare({
  what: `${BIG / MB} MB without newlines`,
  ours: { label: "engine (pty → sidecar)", value: BIG / MB / (big.ms / 1000), unit: "MB/s" },
  theirs: { label: "plain pipe, discarded", value: (await spawnThroughput(print(BIG))) / MB, unit: "MB/s" },
});
compare({
  what: `${BIG / MB} MB of short lines`,
  ours: { label: "engine (pty → sidecar)", value: BIG / MB / (lines.ms / 1000), unit: "MB/s" },
  theirs: {
    label: "plain pipe, discarded",
    value: (await spawnThroughput(printLines(BIG))) / MB,
    unit: "MB/s",
  },
});
console.log(`  peak RSS printing ${BIG / MB} MB of lines: ${mib(lines.peak).toFixed(1)} MiB`);

// ---- (4) the process spawner's own memory, as an installed lathe runs it ----------------------

/** The pid of the process spawner a `lathe` process started (its child running spawner-main.js). */
function spawnerOf(parent: number): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("spawner-main")) {
        return Number(entry);
      }
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** The spawner's peak RSS during one confined bash call of the CLI bundle (`lathe call bash`). */
async function cliSpawnerPeak(): Promise<number> {
  const child = spawn(
    process.execPath,
    [LATHE_BIN, "call", "bash", JSON.stringify({ command: "sleep 0.6" }), "--mode", "yolo"],
    {
      cwd: dir,
      // Its own process: a daemon (started by an earlier command) would run the call, and its spawner, elsewhere.
      env: {
        ...process.env,
        LATHE_CLI: "bundle",
        LATHE_DAEMON: "off",
        LATHE_HOME: path.join(dir, ".lathe-home"),
      },
    },
  );
  const done = new Promise<number | null>((resolve) => child.on("close", resolve));
  let peak = 0;
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    const pid = child.pid === undefined ? undefined : spawnerOf(child.pid);
    if (pid !== undefined) peak = Math.max(peak, rssOf(pid) ?? 0);
    await new Promise((r) => setTimeout(r, 20));
  }
  if ((await done) !== 0) throw new Error("lathe call bash failed");
  return peak;
}

/** A bare Node process's own RSS, as it reports it. */
function bareNodeRss(): number {
  const out = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.memoryUsage().rss))"]);
  return Number(out.stdout.toString());
}

if (rssOf(process.pid) === undefined) {
  skipped("the process spawner's memory", "there is no /proc to read it from on this machine");
} else {
  ensureFreshCliBundle();
  const peaks: number[] = [];
  const bares: number[] = [];
  for (let i = 0; i < 3; i++) {
    peaks.push(await cliSpawnerPeak());
    bares.push(bareNodeRss());
  }
  heading("the process spawner's resident memory (the CLI bundle, one confined bash call, median of 3)");
  compare({
    what: "spawner RSS",
    ours: { label: "the spawner during `lathe call bash`", value: mib(median(peaks)), unit: "MiB" },
    theirs: { label: "a bare node process", value: mib(median(bares)), unit: "MiB" },
  });
}

await engine.close();
await offEngine.close();
await rm(dir, { recursive: true, force: true });
await rm(offHome, { recursive: true, force: true });
