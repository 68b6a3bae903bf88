// Checkpoints: (1) what a checkpoint adds to a `write` of a 1 MB file (a new 1 MB previous
// content each time), against the same write on an engine that keeps no checkpoints, taking turns
// in the same run, beside the same comparison between two engines without checkpoints (the noise
// floor: fsync dominates a write); and the checkpoint's own work in such a call, timed alone.
// Goal ≤ 2 ms added.
// (2) No duplicate storage: previous contents checkpointed by 100 writes alternating two 1 MB
// contents, against the bytes the blob store holds; goal: only the 2 distinct contents stored.
// (3) The cost of checkpointing bash on this repository's tree: the first call of a session
// (every file indexed and stored once) and every later call (a stat scan before and after),
// against `true` run without checkpoints.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Engine, type Session } from "../src/main/engine/index.ts";
import { compare, fmtMs, heading, median } from "./lib/report.ts";

const MB = 1024 * 1024;
const WRITES = 100;
const BASH_RUNS = 20;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-checkpoints-"));

async function open(
  name: string,
  root: string,
  checkpoints: boolean,
): Promise<{ engine: Engine; session: Session }> {
  const engine = await Engine.create({
    root,
    latheHome: path.join(dir, `home-${name}`),
    extensions: false,
    ...(checkpoints ? {} : { checkpoints: false }),
  });
  return { engine, session: await engine.openSession({ id: name, mode: "yolo" }) };
}

async function ok(session: Session, tool: string, args: unknown): Promise<void> {
  const envelope = await session.call(tool, args);
  if (envelope.type !== "output") throw new Error(`${tool} failed: ${envelope.error_text}`);
}

/** A 1 MB text file's content, distinct for each `n`. */
const base = randomBytes(MB / 2).toString("hex");
const content = (n: number): string => `${String(n).padStart(12, "0")}\n${base.slice(13)}`;

// ---- (1) write of a 1 MB file, with and without checkpoints ---------------------------------
// fsync dominates a write (and varies by milliseconds on a busy machine), so the two engines take
// turns and the figure is the median of the pairs' differences.
await mkdir(path.join(dir, "ws"));
const on = await open("on", path.join(dir, "ws"), true);
const off = await open("off", path.join(dir, "ws"), false);
const control = await open("control", path.join(dir, "ws"), false);

let n = 0;
/** Writes taking turns on two sessions: each one's times, and the median of the pairs' differences. */
async function pairedWrites(a: Session, b: Session): Promise<{ a: number[]; b: number[]; added: number }> {
  const out = { a: [] as number[], b: [] as number[], pairs: [] as number[] };
  for (let i = 0; i < WRITES + 2; i++) {
    let t0 = performance.now();
    await ok(a, "write", { path: `${a.id}.txt`, content: content(n++) });
    const x = performance.now() - t0;
    t0 = performance.now();
    await ok(b, "write", { path: `${b.id}.txt`, content: content(n++) });
    const y = performance.now() - t0;
    if (i < 2) continue; // the first two create the files
    out.a.push(x);
    out.b.push(y);
    out.pairs.push(x - y);
  }
  return { a: out.a, b: out.b, added: median(out.pairs) };
}

const measured = await pairedWrites(on.session, off.session);
// The same comparison between two engines that both keep no checkpoints: how far apart two equal
// things measure on this machine right now (the noise floor of the line above).
const floor = await pairedWrites(control.session, off.session);
const withCp = measured.a;
const without = measured.b;
const added = measured.added;
heading(
  `Checkpoint cost of a write of a 1 MB file (median of ${WRITES} pairs, a new 1 MB previous content each time; load average ${os.loadavg()[0]?.toFixed(1)})`,
);
compare({
  what: "write, 1 MB, whole call",
  ours: { label: "with checkpoints", value: median(withCp) },
  theirs: { label: "without", value: median(without) },
  goal: `≤ 2 ms added (median difference of pairs: ${fmtMs(added)}; noise floor, without vs without: ${fmtMs(floor.added)})`,
  met: added <= 2,
});

// The checkpoint's own work in that call, timed alone: open the call's checkpoint, keep the file
// the write replaces, note the new hash, record the checkpoint (the write itself is not timed).
const { writeTool } = await import("../src/main/engine/builtin/write.ts");
const hooks = on.engine.checkpoints.forSession("on");
const file = path.join(on.engine.root, "alone.txt");
const work: number[] = [];
for (let i = 0; i < WRITES; i++) {
  await writeFile(file, content(n++));
  const bytes = await readFile(file);
  const stats = await stat(file);
  const sha256 = createHash("sha256").update(bytes).digest("hex"); // the write tool has this already
  const next = Buffer.from(content(n++));
  const nextHash = createHash("sha256").update(next).digest("hex");
  const t0 = performance.now();
  const checkpoint = await hooks.open({ tool: writeTool, callId: `bench-${i}` });
  await checkpoint?.files?.keep(file, { bytes, sha256, mode: stats.mode & 0o7777, renamedOver: stats });
  const elapsed = performance.now() - t0;
  await writeFile(`${file}.new`, next);
  await rename(`${file}.new`, file);
  const t1 = performance.now();
  checkpoint?.files?.changed(file, nextHash);
  await checkpoint?.close();
  work.push(elapsed + performance.now() - t1);
}
compare({
  what: "checkpoint work per write, 1 MB (keep by hard link, record)",
  ours: { label: "checkpoint", value: median(work) },
  theirs: { label: "the write without checkpoints", value: median(without) },
  goal: "≤ 2 ms",
  met: median(work) <= 2,
});

// ---- (2) no duplicate storage ----------------------------------------------------------------
const dedup = await open("dedup", path.join(dir, "ws"), true);
const x = content(1_000_000);
const y = content(2_000_000);
await ok(dedup.session, "write", { path: "same.txt", content: x });
for (let i = 0; i < WRITES; i++)
  await ok(dedup.session, "write", { path: "same.txt", content: i % 2 ? x : y });
const checkpointed = dedup.engine.checkpoints
  .list("dedup")
  .reduce(
    (sum, c) =>
      sum + dedup.engine.checkpoints.get("dedup", c.id).entries.filter((e) => e.before.exists).length,
    0,
  );
const stored = dedup.engine.checkpoints.blobs.storedBytes();
const distinct = Buffer.byteLength(x) + Buffer.byteLength(y);
heading(`Storage after ${WRITES} writes alternating two 1 MB contents on one file`);
compare({
  what: "bytes",
  ours: { label: "stored in the blob store", value: stored / MB, unit: "MB" },
  theirs: {
    label: "previous contents checkpointed",
    value: (checkpointed * Buffer.byteLength(x)) / MB,
    unit: "MB",
  },
  goal: `only the distinct contents stored (${(distinct / MB).toFixed(2)} MB)`,
  met: stored <= distinct,
});

// ---- (3) bash on this repository's tree ------------------------------------------------------
const repoOn = await open("repo-on", REPO, true);
const repoOff = await open("repo-off", REPO, false);
const bash = (s: Session): Promise<void> => ok(s, "bash", { command: "true" });
await bash(repoOff.session); // warm the shell path once
let t0 = performance.now();
await bash(repoOn.session);
const firstOn = performance.now() - t0;
t0 = performance.now();
await bash(repoOff.session);
const firstOff = performance.now() - t0;
const db = new Database(path.join(dir, "home-repo-on", "lathe.db"), { readonly: true });
const indexed = db
  .prepare(
    "SELECT COUNT(*) AS files, COALESCE(SUM(size), 0) AS bytes, COUNT(hash) AS kept FROM checkpoint_index WHERE type = 'file'",
  )
  .get() as { files: number; bytes: number; kept: number };
db.close();
const steadyOn: number[] = [];
const steadyOff: number[] = [];
for (let i = 0; i < BASH_RUNS; i++) {
  t0 = performance.now();
  await bash(repoOn.session);
  steadyOn.push(performance.now() - t0);
  t0 = performance.now();
  await bash(repoOff.session);
  steadyOff.push(performance.now() - t0);
}
heading(
  `bash on this repository (${indexed.files} files, ${(indexed.bytes / MB).toFixed(1)} MB outside .gitignore; ${indexed.kept} kept)`,
);
compare({
  what: "first call of a session (index and store every file)",
  ours: { label: "with checkpoints", value: firstOn },
  theirs: { label: "without", value: firstOff },
});
compare({
  what: `later calls, median of ${BASH_RUNS} (stat scan before and after)`,
  ours: { label: "with checkpoints", value: median(steadyOn) },
  theirs: { label: "without", value: median(steadyOff) },
  goal: `added ${fmtMs(median(steadyOn) - median(steadyOff))} per call`,
});

for (const e of [on, off, control, dedup, repoOn, repoOff]) await e.engine.close();
await rm(dir, { recursive: true, force: true });
