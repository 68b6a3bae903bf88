import { describe, expect, it } from "vitest";
import { parsePushFrame } from "./push-events.ts";

const frame = (event: unknown) => ({
  event: "run.event",
  payload: { sessionId: "s-1", runId: "r-1", index: 0, event },
});

describe("the run.event push", () => {
  it("carries a child run's events nested in task events, to any depth", () => {
    const deep = {
      type: "task",
      taskId: "s-child",
      toolCallId: "call-1",
      event: { type: "task", taskId: "s-grandchild", event: { type: "text", step: 0, text: "hi" } },
    };
    expect(parsePushFrame(frame(deep))).toEqual({ ok: true, frame: frame(deep) });
  });

  it("drops fields the contract does not know, keeping the event", () => {
    const parsed = parsePushFrame(frame({ type: "notice", message: "plain chat", severity: "info" }));
    expect(parsed).toEqual({ ok: true, frame: frame({ type: "notice", message: "plain chat" }) });
  });

  it.each([
    { name: "an unknown event type", event: { type: "telemetry", data: 1 } },
    { name: "a text delta without its step", event: { type: "text", text: "hi" } },
    { name: "a negative step", event: { type: "step-start", step: -1 } },
    {
      name: "an envelope of the wrong shape",
      event: { type: "tool-result", step: 0, toolCallId: "c", toolName: "read", envelope: { type: "ok" } },
    },
    {
      name: "a finish with an unknown status",
      event: { type: "finish", status: "done", finishReason: "stop", steps: 1, usage: {} },
    },
    {
      name: "a task event with a bad child event",
      event: { type: "task", taskId: "s-c", event: { type: "text" } },
    },
  ])("refuses $name", ({ event }) => {
    expect(parsePushFrame(frame(event)).ok).toBe(false);
  });

  it("refuses extra keys around the event", () => {
    const bad = {
      event: "run.event",
      payload: { sessionId: "s", runId: "r", index: 0, event: { type: "step-start", step: 0 }, x: 1 },
    };
    expect(parsePushFrame(bad).ok).toBe(false);
  });
});
