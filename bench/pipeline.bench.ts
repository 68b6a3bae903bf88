// Pipeline overhead: a no-op read-only tool called through the whole engine pipeline (lookup,
// validation, scheduling, timeout and abort wiring, envelope) against the same function called
// directly. Goal: at most 20 µs added per call at the median.
import { rm } from "node:fs/promises";
import { noopEngine, noopTool } from "./lib/noop-engine.ts";
import { compare, heading, median } from "./lib/report.ts";

const CALLS = 20_000;
const { dir, engine } = await noopEngine("pipeline");
const noop = noopTool;
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
