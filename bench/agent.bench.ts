// The agent loop's own cost, without the model's:
// 1. Overhead per agent step: a mock model that answers instantly, each step one call of a no-op
//    tool, against calling that tool directly. Goal: at most 2 ms added per step.
// 2. Streaming with the session store on: N tokens from an instant model with persistence on and
//    off. Tokens never wait on the disk: the same time, and no longer stall between two tokens.
// (`lathe run` from start to the first model request is in startup.bench.ts.)
import { rm } from "node:fs/promises";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { defaultAgent } from "../src/main/engine/agent/default-agent.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { noopEngine, noopTool } from "./lib/noop-engine.ts";
import { compare, heading, median } from "./lib/report.ts";

const STEPS = 200;
const TOKENS = 20_000;
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A stream that has every part ready at once: the model costs nothing. */
function instant(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}

/** Steps of one no-op call each, then one text answer. */
function toolSteps(steps: number): MockLanguageModelV4 {
  let n = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const i = n++;
      const parts: LanguageModelV4StreamPart[] =
        i < steps
          ? [{ type: "tool-call", toolCallId: `c${i}`, toolName: "noop", input: '{"value":1}' }]
          : [
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "done" },
              { type: "text-end", id: "t" },
            ];
      parts.push({
        type: "finish",
        finishReason: { unified: i < steps ? "tool-calls" : "stop", raw: undefined },
        usage: USAGE,
      });
      return { stream: instant(parts) };
    },
  });
}

/** One answer of `tokens` text deltas. */
function tokenStream(tokens: number): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => {
      const parts: LanguageModelV4StreamPart[] = [{ type: "text-start", id: "t" }];
      for (let i = 0; i < tokens; i++) parts.push({ type: "text-delta", id: "t", delta: `tok${i % 10} ` });
      parts.push(
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE },
      );
      return { stream: instant(parts) };
    },
  });
}

const { dir, engine } = await noopEngine("agent");
const noop = noopTool;
const agent = {
  ...defaultAgent(),
  budgets: { maxRounds: STEPS + 5, maxToolCalls: 100_000, maxCallsPerTool: {} },
};

async function agentRun(model: MockLanguageModelV4, persist: boolean, onEvent?: (event: RunEvent) => void) {
  const t0 = performance.now();
  const result = await runAgent({
    engine,
    agent,
    model: { spec: { provider: "bench", model: "instant" }, model },
    prompt: "go",
    persist,
    // Room for every definition, so the no-op tool is offered rather than deferred.
    contextTokens: 1_000_000,
    ...(onEvent ? { onEvent } : {}),
  });
  if (result.status !== "completed") throw new Error(`the bench run ended ${result.status}: ${result.error}`);
  return performance.now() - t0;
}

// 1. Per-step overhead. First make sure the steps really run the tool.
let ran = 0;
await agentRun(toolSteps(20), true, (event) => {
  if (event.type === "tool-result" && event.envelope.type === "output") ran++;
});
if (ran !== 20) throw new Error(`expected 20 no-op calls to run, ${ran} did`);
const perStep = (ms: number) => ms / (STEPS + 1);
const persisted: number[] = [];
const ephemeral: number[] = [];
for (let i = 0; i < 5; i++) {
  persisted.push(perStep(await agentRun(toolSteps(STEPS), true)));
  ephemeral.push(perStep(await agentRun(toolSteps(STEPS), false)));
}
const runtime = { signal: new AbortController().signal } as never;
const directSamples: number[] = [];
for (let i = 0; i < 2_000; i++) {
  const t0 = performance.now();
  await noop.execute({ value: 1 }, runtime);
  directSamples.push(performance.now() - t0);
}
const direct = median(directSamples);
const stepMs = median(persisted);
heading(
  `Agent step overhead (instant model, one no-op tool call per step, ${STEPS} steps, median of 5 runs)`,
);
compare({
  what: "per step, session recorded",
  ours: { label: "agent step", value: stepMs },
  theirs: { label: "direct tool call", value: direct },
  goal: `≤ 2 ms added per step (added: ${(stepMs - direct).toFixed(3)} ms)`,
  met: stepMs - direct <= 2,
});
compare({
  what: "per step, ephemeral session",
  ours: { label: "agent step", value: median(ephemeral) },
  theirs: { label: "direct tool call", value: direct },
});

// 2. Streaming with persistence on and off: total time and the longest wait between two tokens.
async function streamTokens(persist: boolean): Promise<{ ms: number; maxGap: number }> {
  let last = 0;
  let maxGap = 0;
  const ms = await agentRun(tokenStream(TOKENS), persist, () => {
    const now = performance.now();
    if (last > 0) maxGap = Math.max(maxGap, now - last);
    last = now;
  });
  return { ms, maxGap };
}
await streamTokens(true);
await streamTokens(false);
const on: Array<{ ms: number; maxGap: number }> = [];
const off: Array<{ ms: number; maxGap: number }> = [];
for (let i = 0; i < 5; i++) {
  on.push(await streamTokens(true));
  off.push(await streamTokens(false));
}
const onMs = median(on.map((r) => r.ms));
const offMs = median(off.map((r) => r.ms));
heading(`Streaming ${TOKENS} tokens with the session store (instant model, median of 5 runs)`);
compare({
  what: "time to stream",
  ours: { label: "persistence on", value: onMs },
  theirs: { label: "persistence off", value: offMs },
  goal: "tokens never wait on disk (≤ 1.2×)",
  met: onMs <= offMs * 1.2,
});
compare({
  what: "throughput",
  ours: { label: "persistence on", value: TOKENS / (onMs / 1000), unit: "tokens/s" },
  theirs: { label: "persistence off", value: TOKENS / (offMs / 1000), unit: "tokens/s" },
});
compare({
  what: "longest wait between two tokens",
  ours: { label: "persistence on", value: median(on.map((r) => r.maxGap)) },
  theirs: { label: "persistence off", value: median(off.map((r) => r.maxGap)) },
});

await engine.close();
await rm(dir, { recursive: true, force: true });
