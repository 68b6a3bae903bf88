import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_BUDGETS } from "../src/main/engine/agent/agent-manifest.ts";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { sharedLlamaRuntime } from "../src/main/engine/agent/providers/gguf/llama-runtime.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { RunEventSchema } from "../src/shared/run-event-schema.ts";
import { openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { PACKAGE_ROOT } from "./support/lathe-cli.ts";

// Two runs on one embedded GGUF model (two tabs of the app): the model serves one answer at a
// time, so the second run's request waits for the first one's. That wait counted toward the
// second run's first-output limit (600 s by default), so a long answer in one tab failed the
// other as "never started answering", and its turn said only "waiting for the model".

const MODEL = path.resolve(PACKAGE_ROOT, "../shared/models/llama-2-tiny-random.gguf");
const present = existsSync(MODEL);
if (!present) console.log(`skipping the shared GGUF model wait: ${MODEL} is not there`);

let harness: AgentHarness;
beforeEach(async () => {
  harness = await openAgentHarness({
    agent: {
      tools: { allow: [], deny: [] },
      budgets: { ...DEFAULT_BUDGETS, maxRounds: 1, maxOutputTokens: 4 },
    },
  });
});
afterEach(async () => harness.cleanup());

describe.skipIf(!present)("a run waiting for an embedded model another run is using", () => {
  it("says so, and the wait does not count toward its first-output limit", async () => {
    const env = { LATHE_GGUF_THREADS: "1", LATHE_GGUF_CONTEXT_SIZE: "512" };
    const firstByteMs = 1_500;
    const model = await defaultProviderRegistry().resolve(`gguf:${MODEL}`, {
      providers: { gguf: { timeouts: { firstByteMs } } },
      env,
    });
    // The other tab's run has the model's only sequence.
    const other = await sharedLlamaRuntime().lease(MODEL, { threads: 1, contextSize: 512 });
    const events: RunEvent[] = [];
    let released = false;
    const run = runAgent({
      engine: harness.engine,
      agent: harness.agent,
      model,
      prompt: "Say hi.",
      mode: "yolo",
      onEvent: (event) => {
        events.push(event);
        // Held for longer than the whole first-output limit, then given back.
        if (event.type === "model-waiting" && event.kind === "model-busy" && !released) {
          released = true;
          setTimeout(() => other.release(), firstByteMs * 2);
        }
      },
    });
    // (Given back in any case, so a failing run leaves the model free for the next test.)
    await run.finally(() => other.release());
    // The model answered (the tiny random model writes to its 4-token budget): no stall.
    expect(events.some((e) => e.type === "step-finish")).toBe(true);
    expect(events.some((e) => e.type === "error" && e.cause === "model-stalled")).toBe(false);
    const busy = events.find((e) => e.type === "model-waiting");
    expect(busy).toMatchObject({ type: "model-waiting", kind: "model-busy", timeoutMs: firstByteMs });
    // Hosts (the app over lathe serve) accept the event as the shared contract describes it.
    expect(RunEventSchema.safeParse(busy).success).toBe(true);
    expect(events.some((e) => e.type === "model-resumed")).toBe(true);
  }, 60_000);
});
