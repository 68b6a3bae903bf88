// Pipeline overhead: a no-op read-only tool called through the whole engine pipeline (lookup,
// validation, scheduling, timeout and abort wiring, envelope) against the same function called
// directly. Goal: at most 20 µs added per call at the median.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineBuiltin } from "../src/main/engine/builtin/define-builtin.ts";
import { Engine } from "../src/main/engine/index.ts";
import { compare, heading, median } from "./lib/report.ts";

const CALLS = 20_000;
const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-pipeline-"));
const engine = await Engine.create({ root: dir, latheHome: path.join(dir, ".lathe-home") });
const noop = defineBuiltin({
  id: "noop",
  description: "Does nothing.",
  schema: z.strictObject({ value: z.number().optional() }),
  requires: {},
  readOnly: true,
  kind: "other",
  execute: async (args) => args,
});
engine.registry.register(noop, { layer: "project", kind: "plugin", name: "bench" });
const session = await engine.openSession();
const runtime = { signal: new AbortController().signal } as never;

async function perCall(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 2_000; i++) await fn();
  const samples = new Array<number>(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await fn();
    samples[i] = performance.now() - t0;
  }
  return samples;
}

const args = { value: 1 };
const direct = median(await perCall(() => noop.execute(args, runtime)));
const pipeline = median(await perCall(() => session.call("noop", { value: 1 })));
heading("Pipeline overhead (no-op read-only tool, median per call)");
compare({
  what: `per call over ${CALLS} calls`,
  ours: { label: "through the pipeline", value: pipeline },
  theirs: { label: "direct call", value: direct },
  goal: `≤ 20 µs added (added: ${((pipeline - direct) * 1000).toFixed(1)} µs)`,
  met: (pipeline - direct) * 1000 <= 20,
});

await engine.close();
await rm(dir, { recursive: true, force: true });
