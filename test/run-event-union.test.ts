import { describe, expect, expectTypeOf, it } from "vitest";
import type { RunEvent as EngineRunEvent } from "../src/main/engine/agent/run-events.ts";
import { RunEventSchema, type RunEvent as ContractRunEvent } from "../src/shared/run-event-schema.ts";

// The engine may not import src/shared, so the run-event union is declared twice: as the engine's
// type (agent/run-events.ts) and as the UI contract's schema, whose type is derived from it. This
// suite holds the two equal, at compile time (npm run typecheck) and at run time.

/** One event of every type the engine emits: a type added to the engine without a row here does not compile. */
const ONE_OF_EACH: { [T in EngineRunEvent["type"]]: Extract<EngineRunEvent, { type: T }> } = {
  start: { type: "start", sessionId: "s-1", runId: "r-1", agent: "default", model: "m", resumed: false },
  notice: { type: "notice", message: "plain chat" },
  compaction: {
    type: "compaction",
    reason: "context-full",
    messages: 12,
    tokensBefore: 7_000,
    tokensAfter: 2_000,
    summary: "Goals and constraints: …",
  },
  "step-start": { type: "step-start", step: 0 },
  text: { type: "text", step: 0, text: "hi" },
  reasoning: { type: "reasoning", step: 0, text: "thinking" },
  "tool-call": { type: "tool-call", step: 0, toolCallId: "c1", toolName: "read", input: { path: "a" } },
  approval: {
    type: "approval",
    step: 0,
    toolCallId: "c1",
    toolName: "write",
    decision: "deny",
    reason: "headless",
  },
  "tool-phase": { type: "tool-phase", step: 0, toolCallId: "c1", toolName: "write", phase: "queued" },
  "question-refused": { type: "question-refused", step: 0, toolCallId: "c2", message: "no one can answer" },
  "tool-result": {
    type: "tool-result",
    step: 0,
    toolCallId: "c1",
    toolName: "read",
    envelope: { type: "output", data: { content: "x" }, metadata: { duration_ms: 3, truncated: true } },
  },
  "step-finish": { type: "step-finish", step: 0, finishReason: "stop", usage: { inputTokens: 5 } },
  "model-waiting": {
    type: "model-waiting",
    step: 1,
    kind: "first-byte",
    elapsedMs: 5_000,
    timeoutMs: 60_000,
  },
  "model-resumed": { type: "model-resumed", step: 1, waitedMs: 6_000 },
  error: { type: "error", message: "the model failed" },
  finish: { type: "finish", status: "completed", finishReason: "stop", steps: 2, usage: {} },
  task: {
    type: "task",
    taskId: "t-1",
    toolCallId: "c3",
    event: { type: "task", taskId: "t-2", event: { type: "text", step: 0, text: "deep" } },
  },
};

describe("the run-event union", () => {
  it("is one type in the engine and in the UI contract", () => {
    expectTypeOf<ContractRunEvent>().toEqualTypeOf<EngineRunEvent>();
  });

  it("the contract carries a text's cut-off mark", () => {
    const cut: EngineRunEvent = { type: "text", step: 0, text: "", cutOff: true };
    expect(RunEventSchema.parse(cut)).toEqual(cut);
  });

  it.each(Object.values(ONE_OF_EACH))("the contract carries the engine's $type event as it is", (event) => {
    expect(RunEventSchema.parse(event)).toEqual(event);
  });
});
