// Scheduler: 8 `read` calls with 50 ms of injected latency each, issued at once. Read-only calls
// run concurrently, so the wall time should be close to one read (goal ≤ 1.3× one read), far
// from the sequential sum; the same for those reads as the lines of a `lathe batch`.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { runCallBatch } from "../src/main/cli/call-batch.ts";
import { Engine } from "../src/main/engine/index.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const LATENCY_MS = 50;
const READS = 8;
const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-reads-"));
for (let i = 0; i < READS; i++) await writeFile(path.join(dir, `f${i}.txt`), `file ${i}\n`.repeat(100));
const engine = await Engine.create({ root: dir, latheHome: path.join(dir, ".lathe-home") });
const read = engine.registry.get("read")?.tool;
if (!read) throw new Error("the read tool is not registered");
engine.registry.register(
  {
    ...read,
    id: "slow_read",
    execute: async (args: unknown, runtime: never) => {
      await new Promise((r) => setTimeout(r, LATENCY_MS));
      return read.execute(args, runtime);
    },
  },
  { layer: "project", kind: "plugin", name: "bench" },
);
const session = await engine.openSession();
const one = (i: number) => session.call("slow_read", { path: `f${i}.txt` });

const single = median(await sample(() => one(0), 10));
const parallel = median(await sample(() => Promise.all(Array.from({ length: READS }, (_, i) => one(i))), 10));
const sequential = median(
  await sample(async () => {
    for (let i = 0; i < READS; i++) await one(i);
  }, 3),
);

heading(`${READS} reads with ${LATENCY_MS} ms injected latency`);
compare({
  what: "wall time, parallel vs one read",
  ours: { label: `${READS} in parallel`, value: parallel },
  theirs: { label: "one read", value: single },
  goal: "≤ 1.3×",
  met: parallel / single <= 1.3,
});
compare({
  what: "wall time, parallel vs sequential",
  ours: { label: `${READS} in parallel`, value: parallel },
  theirs: { label: `${READS} one after another`, value: sequential },
});

// The same reads as lines of `lathe batch` (its loop, in process): issued as they are read.
const batch = async (): Promise<void> => {
  const input = new PassThrough();
  input.end(Array.from({ length: READS }, (_, i) => `slow_read {"path":"f${i}.txt"}\n`).join(""));
  const tally = await runCallBatch(session, input, async () => undefined, new AbortController().signal);
  if (tally.failed > 0) throw new Error("a batched read failed");
};
const batched = median(await sample(batch, 10));
compare({
  what: "lathe batch: wall time of its reads vs one read",
  ours: { label: `${READS} lines of a batch`, value: batched },
  theirs: { label: "one read", value: single },
  goal: "≤ 1.3×",
  met: batched / single <= 1.3,
});

await engine.close();
await rm(dir, { recursive: true, force: true });
