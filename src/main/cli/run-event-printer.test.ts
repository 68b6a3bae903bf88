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

  // Two tasks side by side on one embedded model: the second sat silent on the terminal for as
  // long as the first one's answer took, as if hung.
  it("says a task is waiting for the model another run is using, and nothing for a short silence", () => {
    const { stdout, stderr } = printed(false, [
      { type: "model-waiting", step: 0, kind: "first-byte", elapsedMs: 10_000, timeoutMs: 600_000 },
      ...inTask("t-2", [
        { type: "model-waiting", step: 0, kind: "model-busy", elapsedMs: 1_000, timeoutMs: 600_000 },
      ]),
    ]);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "  │ lathe: waiting for the model: another run is using it (the wait counts toward no timeout; its 600 s to start answering begin once it has the model)\n",
    );
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

  // What a model, a tool or a server wrote must not act on the terminal of whoever reads the run:
  // set its title, write its clipboard (OSC 52), clear it, recolour it.
  const HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\x1b[31mred\u009b0m";
  it.each<[string, RunEvent]>([
    ["the model's text", { type: "text", step: 0, text: `Hi ${HOSTILE}\n` }],
    [
      "a tool's error",
      {
        type: "tool-result",
        step: 0,
        toolCallId: "c",
        toolName: "read",
        envelope: { type: "error", error_text: `not found: ${HOSTILE}`, metadata: { duration_ms: 1 } },
      },
    ],
    [
      "an approval's reason",
      {
        type: "approval",
        step: 0,
        toolCallId: "c",
        toolName: "bash",
        decision: "deny",
        reason: `the command "${HOSTILE}" needs approval`,
      },
    ],
    ["a notice", { type: "notice", message: HOSTILE }],
    ["a run's error", { type: "error", message: `the server said ${HOSTILE}` }],
    ["a tool's name", { type: "tool-call", step: 0, toolCallId: "c", toolName: `mcp_${HOSTILE}`, input: {} }],
    [
      "a task's text",
      { type: "task", taskId: "t", toolCallId: "c", event: { type: "text", step: 0, text: `${HOSTILE}\n` } },
    ],
  ])("prints no control character of %s but newlines, escaped instead", (_what, event) => {
    const { stdout, stderr } = printed(false, [event]);
    const all = stdout + stderr;
    // eslint-disable-next-line no-control-regex -- controls other than newline and tab are what must not pass
    expect(all).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(all).toContain(String.raw`\u001b]52;c;cm0gLXJmIH4=\u0007`);
    expect(all).toContain(String.raw`\u009b0m`);
  });

  it("keeps the model's newlines, tabs and right-to-left marks, and prints \\r\\n as a newline", () => {
    const { stdout } = printed(false, [{ type: "text", step: 0, text: "a\tb\r\nשלום\u200F\n" }]);
    expect(stdout).toBe("a\tb\nשלום\u200F\n");
  });
});
