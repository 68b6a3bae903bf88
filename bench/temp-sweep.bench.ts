// The start-up sweep of temp folders that killed runs left behind (src/main/engine/temp/): every
// engine process begins one, off the hot path. Goal: with nothing to sweep it costs well under
// 1 ms. Printed beside the whole start-up of `lathe call read` (which includes it; no daemon)
// measured in the same run, so the ratio is its share of a start. Figures: a temp folder of 100
// entries of other programs; the same with 10 folders of live Lathe runs (each checked in
// /proc); and this machine's own temp folder, whatever it holds. Run alone with
// `node bench/temp-sweep.bench.ts`.
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ownIdentity, processStartTime } from "../src/main/engine/temp/process-start.ts";
import { sweepStaleTempFolders } from "../src/main/engine/temp/stale-temp-sweep.ts";
import { ownedTempPrefix } from "../src/main/engine/temp/temp-folder-name.ts";
import { ensureFreshCliBundle } from "./lib/fresh-cli-bundle.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LATHE = path.join(ROOT, "bin", "lathe.mjs");
const GOAL_MS = 1;
const RUNS = 200;
const STARTS = 10;

ensureFreshCliBundle();

const work = await mkdtemp(path.join(os.tmpdir(), "bench-temp-sweep-"));
try {
  // A temp folder as a desktop's usually is: other programs' files and folders, old-style Lathe names.
  const plain = path.join(work, "plain");
  await mkdir(plain);
  for (let i = 0; i < 100; i++) {
    if (i % 2 === 0) await mkdir(path.join(plain, `prog-${i}-${i.toString(36)}`));
    else await writeFile(path.join(plain, i % 5 === 1 ? `lathe-s${i}-Ab12Cd` : `file-${i}.tmp`), "x");
  }
  // The same, with 10 folders of live runs (a daemon's sessions): each one's owner is looked up.
  const busy = path.join(work, "busy");
  await mkdir(busy);
  for (const name of await readdir(plain)) await writeFile(path.join(busy, name), "");
  const live = spawn("sleep", ["600"], { stdio: "ignore" });
  const start = processStartTime(live.pid as number) ?? 0;
  const owner = { pid: live.pid as number, start, namespace: ownIdentity().namespace };
  for (let i = 0; i < 10; i++) await mkdir(path.join(busy, `${ownedTempPrefix(`s-${i}`, owner)}Ab12C${i}`));

  const sweepMs = async (dir: string): Promise<number> => {
    const samples = await sample(async () => {
      const result = await sweepStaleTempFolders(dir);
      if (result.removed.length > 0 || result.failed.length > 0)
        throw new Error(`${dir} had something to sweep`);
    }, RUNS);
    return median(samples);
  };
  const plainMs = await sweepMs(plain);
  const busyMs = await sweepMs(busy);
  live.kill("SIGKILL");
  // This machine's own temp folder: only timed when nothing in it is stale (a sweep would remove it).
  const machineTmp = os.tmpdir();
  const machineEntries = (await readdir(machineTmp)).length;
  const firstPass = await sweepStaleTempFolders(machineTmp);
  const machineMs = await sweepMs(machineTmp);

  // The whole start-up it is part of: `lathe call read` of a small file, without a daemon.
  const ws = path.join(work, "ws");
  await mkdir(ws);
  await writeFile(path.join(ws, "small.txt"), "a small file\n");
  const env: NodeJS.ProcessEnv = { ...process.env, LATHE_HOME: path.join(work, "home"), LATHE_DAEMON: "off" };
  delete env.LATHE_CLI;
  const once = (): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [LATHE, "call", "read", '{"path":"small.txt"}'], { cwd: ws, env });
    if (r.status !== 0) throw new Error(`lathe call read failed: ${r.stderr.toString()}`);
    return performance.now() - t0;
  };
  once();
  const startMs = median(Array.from({ length: STARTS }, once));

  heading(
    `The start-up temp sweep with nothing to sweep (median of ${RUNS} sweeps; lathe call read: median of ${STARTS})`,
  );
  const START = { label: "lathe call read (whole start-up)", value: startMs };
  for (const [what, ms] of [
    ["sweep of a temp folder of 100 other entries", plainMs],
    ["the same with 10 folders of live Lathe runs", busyMs],
  ] as const) {
    compare({
      what,
      ours: { label: "sweep", value: ms },
      theirs: START,
      goal: `< ${GOAL_MS} ms`,
      met: ms < GOAL_MS,
    });
  }
  compare({
    what: `this machine's temp folder (${machineEntries} entries${firstPass.removed.length > 0 ? `; ${firstPass.removed.length} stale folders removed by a first pass` : ""})`,
    ours: { label: "sweep", value: machineMs },
    theirs: START,
  });
} finally {
  await rm(work, { recursive: true, force: true });
}
