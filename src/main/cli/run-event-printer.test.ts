import { describe, expect, it } from "vitest";
import type { RunEvent } from "../engine/agent/index.ts";
import { CUT_OFF_LINE, runEventPrinter } from "./run-event-printer.ts";

function printed(json: boolean, events: RunEvent[]): { stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const print = runEventPrinter(json, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  for (const e of events) print(e);
  return { stdout, stderr };
}

const ok = { type: "output" as const, data: {}, metadata: { duration_ms: 4 } };

function inTask(taskId: string, events: RunEvent[]): RunEvent[] {
  return events.map((event) => ({ type: "task", taskId, toolCallId: "c1", event }));
}

describe("lathe run's event printer", () => {
  it("says under a text the model did not finish that it was cut off, on stderr, its own line", () => {
    const { stdout, stderr } = printed(false, [
      { type: "text", step: 0, text: "Half an " },
      { type: "text", step: 0, text: "answ" },
      { type: "text", step: 0, text: "", cutOff: true },
      { type: "error", message: "cut off" },
    ]);
    expect(stdout).toBe("Half an answ\n");
    expect(stderr).toBe(`${CUT_OFF_LINE}\nerror: cut off\n`);
  });

  it("says it under a task's cut text too, indented", () => {
    const { stderr } = printed(false, [
      ...inTask("t-1", [
        { type: "text", step: 0, text: "Half" },
        { type: "text", step: 0, text: "", cutOff: true },
      ]),
    ]);
    expect(stderr).toBe(`  │ Half\n  │ ${CUT_OFF_LINE}\n`);
  });

  it("prints no mark for a whole text", () => {
    const { stderr } = printed(false, [{ type: "text", step: 0, text: "Whole.\n" }]);
    expect(stderr).toBe("");
  });

  it("prints a task's work indented on stderr, whole lines at a time, and keeps stdout for the answer", () => {
    const child: RunEvent[] = [
      { type: "start", sessionId: "t-1", runId: "r", agent: "worker", model: "ollama:m", resumed: false },
      { type: "text", step: 0, text: "Looking at the fi" },
      { type: "text", step: 0, text: "les.\nThen I" },
      { type: "tool-call", step: 0, toolCallId: "a", toolName: "read", input: { path: "a.txt" } },
      { type: "tool-result", step: 0, toolCallId: "a", toolName: "read", envelope: ok },
      { type: "text", step: 1, text: "Done." },
      { type: "finish", status: "completed", finishReason: "stop", steps: 2, usage: {} },
    ];
    const { stdout, stderr } = printed(false, [
      { type: "tool-call", step: 0, toolCallId: "c1", toolName: "task", input: { description: "look" } },
      ...inTask("t-1", child),
      { type: "tool-result", step: 0, toolCallId: "c1", toolName: "task", envelope: ok },
      { type: "text", step: 1, text: "All done." },
      { type: "finish", status: "completed", finishReason: "stop", steps: 2, usage: {} },
    ]);
    expect(stdout).toBe("All done.\n");
    expect(stderr).toBe(
      [
        '▸ task {"description":"look"}',
        "  │ task t-1: agent worker on ollama:m",
        "  │ Looking at the files.",
        "  │ Then I",
        '  │ ▸ read {"path":"a.txt"}',
        "  │   ✓ read (4 ms)",
        "  │ Done.",
        "  │ task completed after 2 steps",
        "  ✓ task (4 ms)",
        "",
      ].join("\n"),
    );
  });

  it("indents a task's own tasks one level further", () => {
    const { stderr } = printed(
      false,
      inTask("t-1", [
        ...inTask("t-2", [
          { type: "text", step: 0, text: "deep\n" },
          { type: "error", message: "the model failed" },
        ]),
      ]),
    );
    expect(stderr).toBe("  │   │ deep\n  │   │ error: the model failed\n");
  });

  it("prints task events nested as they are with --json", () => {
    const event: RunEvent = {
      type: "task",
      taskId: "t-1",
      toolCallId: "c1",
      event: { type: "text", step: 0, text: "hi" },
    };
    expect(printed(true, [event])).toEqual({ stdout: `${JSON.stringify(event)}\n`, stderr: "" });
  });
});
