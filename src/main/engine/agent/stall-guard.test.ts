import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startOpenAICompatibleServer,
  type FixtureReply,
  type FixtureServer,
} from "../../../../test/fixtures/openai-compatible-server.ts";
import { openAgentHarness, eventsOf, type AgentHarness } from "../../../../test/support/agent-harness.ts";
import { defaultProviderRegistry } from "./default-providers.ts";
import { ModelStallError } from "./model-stall-error.ts";
import { runAgent } from "./run-agent.ts";
import type { RunEvent } from "./run-events.ts";
import type { ModelTurnListener } from "./model-turn.ts";
import { guardAgainstStalls } from "./stall-guard.ts";

// A model that goes silent fails the step after its configured timeout, through the real
// OpenAI-compatible client against a loopback server that misbehaves in each way a stalled
// local server does.

let harness: AgentHarness;
let fixture: FixtureServer | undefined;

beforeEach(async () => {
  harness = await openAgentHarness();
});
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await harness.cleanup();
});

async function runAgainst(
  reply: FixtureReply | FixtureReply[],
  timeouts: { firstByteMs: number; idleMs: number },
  signal?: AbortSignal,
) {
  const replies = Array.isArray(reply) ? reply : [reply];
  fixture = await startOpenAICompatibleServer({ models: ["m"], replies, chunkChars: 4 });
  const model = await defaultProviderRegistry().resolve("openai-compatible:m", {
    providers: { "openai-compatible": { baseURL: fixture.baseURL, timeouts } },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({
    engine: harness.engine,
    agent: harness.agent,
    model,
    prompt: "Say something.",
    contextTokens: 1_000_000,
    flushIntervalMs: 5,
    mode: "yolo",
    onEvent: (e) => events.push(e),
    ...(signal ? { signal } : {}),
  });
  return { result, events, fixture };
}

const SHORT = { firstByteMs: 400, idleMs: 400 };

describe("a model that goes silent", () => {
  it.each<[string, FixtureReply, RegExp]>([
    [
      "accepts the request and never answers (no headers)",
      { silent: true },
      /^The OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+ sent nothing for 0\.4 s after the request for m: it never started answering\. .*raise providers\["openai-compatible"\]\.timeouts\.firstByteMs in settings \(now 400\)/,
    ],
    [
      "sends headers and an empty first chunk, then nothing",
      { text: "never sent", stallAfterEvents: 1 },
      /sent nothing for 0\.4 s after the request for m: it never started answering.*timeouts\.firstByteMs in settings \(now 400\)/,
    ],
    [
      "stops in the middle of its answer",
      { text: "Half an answ", stallAfterEvents: 3 },
      /^The OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+ stopped in the middle of m's answer: nothing more for 0\.4 s\. .*raise providers\["openai-compatible"\]\.timeouts\.idleMs in settings \(now 400\)/,
    ],
  ])(
    "fails the step when it %s, naming the endpoint, the wait and the setting",
    async (_label, reply, message) => {
      const { result, events, fixture: server } = await runAgainst(reply, SHORT);
      expect(result.status).toBe("failed");
      expect(result.error).toMatch(message);
      expect(eventsOf(events, "error").map((e) => e.message)).toEqual([result.error]);
      // The request is given up, not left open on the server.
      await expect.poll(() => server.timings[0]?.clientGoneAt).toBeDefined();
      // One request: a stall is not retried behind the person's back.
      expect(server.requests).toHaveLength(1);
    },
  );

  it("keeps what the model said before it stopped, marked as cut off, so the session resumes with it", async () => {
    const { result, events } = await runAgainst({ text: "Half an answer", stallAfterEvents: 3 }, SHORT);
    expect(result.status).toBe("failed");
    expect(result.text).toBe("Half an ");
    expect(
      eventsOf(events, "text")
        .map((e) => e.text)
        .join(""),
    ).toBe("Half an ");
    const stored = harness.engine.conversations().messages(result.sessionId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[1]?.parts).toEqual([{ type: "text", text: "Half an ", cutOff: true }]);
  });

  it("lets a slow model that keeps talking finish", async () => {
    const { result, events } = await runAgainst(
      { text: "slow but steady", firstByteDelayMs: 300, eventDelayMs: 150 },
      { firstByteMs: 3_000, idleMs: 3_000 },
    );
    expect(result.status).toBe("completed");
    expect(result.text).toBe("slow but steady");
    expect(eventsOf(events, "error")).toEqual([]);
  });

  it("says it is waiting while the model is quiet, and that it went on once it answers", async () => {
    await harness.put("a.txt", "alpha\n");
    const { result, events } = await runAgainst(
      [
        { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
        { text: "finally", firstByteDelayMs: 1_300 },
      ],
      { firstByteMs: 5_000, idleMs: 5_000 },
    );
    expect(result.status).toBe("completed");
    const waiting = eventsOf(events, "model-waiting");
    // The wait belongs to the second step, whose request it is, though that step has not started streaming.
    expect(waiting).toEqual([
      { type: "model-waiting", step: 1, kind: "first-byte", elapsedMs: expect.any(Number), timeoutMs: 5_000 },
    ]);
    expect(waiting[0]?.elapsedMs).toBeGreaterThanOrEqual(1_000);
    const resumed = eventsOf(events, "model-resumed");
    expect(resumed).toEqual([{ type: "model-resumed", step: 1, waitedMs: expect.any(Number) }]);
    expect(resumed[0]?.waitedMs).toBeGreaterThanOrEqual(waiting[0]?.elapsedMs ?? 0);
    // Live only: a replay of the session does not wait again.
    const replayed = harness.engine
      .conversations()
      .events(result.sessionId)
      .map((e) => e.type);
    expect(replayed).not.toContain("model-waiting");
    expect(replayed).not.toContain("model-resumed");
    expect(replayed).toContain("text");
  });

  it("stops at once when the person stops the run while the model is silent", async () => {
    const stop = new AbortController();
    const running = runAgainst({ silent: true }, { firstByteMs: 60_000, idleMs: 60_000 }, stop.signal);
    await expect.poll(() => fixture?.requests.length ?? 0).toBe(1);
    stop.abort(new Error("stopped by the person"));
    const { result, events } = await running;
    expect(result.status).toBe("aborted");
    expect(eventsOf(events, "error")).toEqual([]);
  });
});

describe("guardAgainstStalls", () => {
  function stalledModel(seen: LanguageModelV4CallOptions[]): LanguageModelV4 {
    return new MockLanguageModelV4({
      doStream: (options) => {
        seen.push(options);
        return new Promise(() => undefined);
      },
    });
  }

  it("rejects a call that never answers with ModelStallError and aborts the request it made", async () => {
    const seen: LanguageModelV4CallOptions[] = [];
    const guarded = guardAgainstStalls(stalledModel(seen), {
      timeouts: { firstByteMs: 100, idleMs: 100 },
      describe: { endpoint: "Ollama at http://127.0.0.1:1", model: "llama", settingsKey: "providers.ollama" },
    }) as LanguageModelV4;
    const failure = await Promise.resolve(guarded.doStream({ prompt: [] })).catch((e: unknown) => e);
    expect(ModelStallError.isModelStall(failure)).toBe(true);
    expect((failure as ModelStallError).details).toMatchObject({ kind: "first-byte", timeoutMs: 100 });
    expect((failure as Error).message).toContain(
      "providers.ollama.timeouts.firstByteMs in settings (now 100)",
    );
    expect(seen[0]?.abortSignal?.aborted).toBe(true);
    expect(seen[0]?.abortSignal?.reason).toBe(failure);
  });

  it("does not count a wait for the model's turn (another run has it) toward the first-output limit", async () => {
    // The model is busy for 3 × firstByteMs, then answers at once.
    let busy: (() => void) | undefined;
    const answer = (): LanguageModelV4StreamResult => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "hi" });
          controller.enqueue({ type: "text-end", id: "t" });
          controller.close();
        },
      }),
    });
    const turnTaking = Object.assign(new MockLanguageModelV4({ doStream: async () => answer() }), {
      doStreamInTurn: async (_o: LanguageModelV4CallOptions, turn: ModelTurnListener) => {
        turn.queued?.();
        await new Promise<void>((resolve) => (busy = resolve));
        turn.started?.();
        return answer();
      },
    });
    const said: string[] = [];
    const guarded = guardAgainstStalls(turnTaking, {
      timeouts: { firstByteMs: 100, idleMs: 100 },
      describe: { endpoint: "E", model: "m", settingsKey: "providers.gguf" },
      noticeMs: 20,
      onWaiting: (w) => said.push(`waiting ${w.kind}`),
      onResumed: (w) => said.push(`resumed ${w.kind}`),
    }) as LanguageModelV4;
    const call = Promise.resolve(guarded.doStream({ prompt: [] }));
    await new Promise((r) => setTimeout(r, 300));
    busy?.();
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of (await call).stream) parts.push(part);
    expect(parts.map((p) => p.type)).toEqual(["text-start", "text-delta", "text-end"]);
    expect(said).toEqual(["waiting model-busy", "resumed model-busy"]);
  });

  /** A stream that sends `part(i)` every `everyMs` until the reader stops. */
  function ticking(
    part: (i: number) => LanguageModelV4StreamPart,
    everyMs: number,
    count: number,
  ): LanguageModelV4 {
    return new MockLanguageModelV4({
      doStream: async () => {
        let i = 0;
        let timer: NodeJS.Timeout | undefined;
        const stream = new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "response-metadata", id: "r" });
            timer = setInterval(() => {
              if (i === count) {
                clearInterval(timer);
                controller.close();
              } else controller.enqueue(part(i++));
            }, everyMs);
          },
          cancel: () => clearInterval(timer),
        });
        return { stream };
      },
    });
  }

  async function drain(model: LanguageModelV4): Promise<unknown> {
    const guarded = guardAgainstStalls(model, {
      timeouts: { firstByteMs: 300, idleMs: 300 },
      describe: { endpoint: "E", model: "m", settingsKey: "providers.e" },
    }) as LanguageModelV4;
    try {
      const { stream } = await guarded.doStream({ prompt: [] });
      for await (const part of stream) void part;
      return "finished";
    } catch (error) {
      return error;
    }
  }

  it("does not count metadata or empty chunks as the model talking", async () => {
    const failure = await drain(ticking(() => ({ type: "text-delta", id: "t", delta: "" }), 50, 40));
    expect(ModelStallError.isModelStall(failure)).toBe(true);
    expect((failure as ModelStallError).details.kind).toBe("first-byte");
  });

  it("lets a stream whose pieces come closer than idleMs run longer than idleMs", async () => {
    expect(await drain(ticking(() => ({ type: "text-delta", id: "t", delta: "x" }), 60, 15))).toBe(
      "finished",
    );
  });

  it("passes the model's identity through and leaves models it cannot wrap alone", () => {
    const inner = new MockLanguageModelV4({ provider: "p", modelId: "m" });
    const guarded = guardAgainstStalls(inner, {
      timeouts: { firstByteMs: 100, idleMs: 100 },
      describe: { endpoint: "x", model: "m", settingsKey: "providers.x" },
    }) as LanguageModelV4;
    expect([guarded.provider, guarded.modelId, guarded.specificationVersion]).toEqual(["p", "m", "v4"]);
    expect(
      guardAgainstStalls("gateway/model", {
        timeouts: { firstByteMs: 1, idleMs: 1 },
        describe: { endpoint: "x", model: "m", settingsKey: "k" },
      }),
    ).toBe("gateway/model");
  });
});
