import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../shared/run-event-schema.ts";
import {
  applyToTurn,
  interruptTurn,
  newTurn,
  sessionUsage,
  turnFromHistory,
  waitingLabel,
  type ToolCard,
  type Turn,
} from "./transcript.ts";

function fold(events: RunEvent[], turn: Turn = newTurn("Do it")): Turn {
  return events.reduce(applyToTurn, turn);
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const start: RunEvent = {
  type: "start",
  sessionId: "s-1",
  runId: "r-1",
  agent: "default",
  model: "ollama:x",
  resumed: false,
};
const ok = (data: unknown) => ({ type: "output" as const, data, metadata: { duration_ms: 12 } });

function cards(turn: Turn): ToolCard[] {
  return turn.items.filter((item): item is ToolCard => item.kind === "tool");
}

describe("the transcript of a turn", () => {
  it("joins text deltas of a step into one block, and starts a new block per step and after a card", () => {
    const turn = fold([
      start,
      { type: "text", step: 0, text: "Hel" },
      { type: "text", step: 0, text: "lo" },
      { type: "reasoning", step: 0, text: "hmm" },
      { type: "tool-call", step: 0, toolCallId: "c1", toolName: "read", input: { path: "a" } },
      { type: "text", step: 0, text: "After" },
      { type: "text", step: 1, text: "Next" },
    ]);
    expect(turn.runId).toBe("r-1");
    expect(turn.items.map((i) => i.kind)).toEqual(["text", "reasoning", "tool", "text", "text"]);
    expect(turn.items[0]).toEqual({ kind: "text", step: 0, text: "Hello" });
    expect(turn.status).toBe("running");
  });

  it.each([
    {
      name: "an output is ok",
      events: [{ type: "tool-result", envelope: ok({ path: "a" }) }],
      status: "ok",
    },
    {
      name: "an error is an error",
      events: [
        {
          type: "tool-result",
          envelope: { type: "error", error_text: "no such file", metadata: { duration_ms: 1 } },
        },
      ],
      status: "error",
    },
    {
      name: "a refused approval is denied",
      events: [
        { type: "approval", decision: "deny", reason: "the user rejected the call" },
        {
          type: "tool-result",
          envelope: { type: "error", error_text: "rejected", metadata: { duration_ms: 0 } },
        },
      ],
      status: "denied",
    },
    {
      name: "a call a permission rule or the watchdog refused is denied (no person asked)",
      events: [
        {
          type: "tool-result",
          envelope: { type: "error", error_text: "a rule denies it", metadata: { duration_ms: 0 } },
          denied: true,
        },
      ],
      status: "denied",
    },
    { name: "a call still going when the run ends is stopped", events: [], status: "stopped" },
  ])("marks the card: $name", ({ events, status }) => {
    const common = { step: 0, toolCallId: "c1", toolName: "write" };
    const turn = fold([
      start,
      { ...common, type: "tool-call", input: { path: "a", content: "x" } },
      ...events.map((e) => ({ ...common, ...e }) as RunEvent),
      { type: "finish", status: "completed", finishReason: "stop", steps: 1, usage },
    ]);
    expect(cards(turn)[0]?.status).toBe(status);
    expect(turn.status).toBe("completed");
    expect(turn.usage).toEqual(usage);
  });

  it("matches results to their calls when parallel calls finish out of order", () => {
    const turn = fold([
      { type: "tool-call", step: 0, toolCallId: "a", toolName: "read", input: {} },
      { type: "tool-call", step: 0, toolCallId: "b", toolName: "read", input: {} },
      { type: "tool-result", step: 0, toolCallId: "b", toolName: "read", envelope: ok("B") },
      { type: "tool-result", step: 0, toolCallId: "a", toolName: "read", envelope: ok("A") },
    ]);
    expect(cards(turn).map((c) => [c.toolCallId, c.envelope?.type === "output" && c.envelope.data])).toEqual([
      ["a", "A"],
      ["b", "B"],
    ]);
  });

  it("keeps a question the host could not ask, notices, and the run's error", () => {
    const turn = fold([
      { type: "notice", message: "plain chat" },
      { type: "tool-call", step: 0, toolCallId: "q", toolName: "question", input: {} },
      { type: "question-refused", step: 0, toolCallId: "q", message: "headless" },
      { type: "error", message: "Ollama is not running" },
      { type: "finish", status: "failed", finishReason: "error", steps: 0, usage: {} },
    ]);
    expect(turn.items[0]).toEqual({ kind: "notice", message: "plain chat" });
    expect(cards(turn)[0]?.refusal).toBe("headless");
    expect(turn).toMatchObject({ status: "failed", error: "Ollama is not running" });
  });

  it("keeps why the host stopped the run, and only then", () => {
    const stopped = (stoppedBecause?: string): RunEvent => ({
      type: "finish",
      status: "aborted",
      finishReason: "aborted",
      steps: 0,
      usage: {},
      ...(stoppedBecause !== undefined ? { stoppedBecause } : {}),
    });
    expect(fold([start, stopped("the tab that started it was closed")])).toMatchObject({
      status: "aborted",
      stoppedBecause: "the tab that started it was closed",
    });
    expect(fold([start, stopped()]).stoppedBecause).toBeUndefined();
  });

  it("nests a child run under the task call that started it, to any depth", () => {
    const child = (event: RunEvent): RunEvent => ({
      type: "task",
      taskId: "s-child",
      toolCallId: "t1",
      event,
    });
    const turn = fold([
      { type: "tool-call", step: 0, toolCallId: "t1", toolName: "task", input: { description: "Review" } },
      child({ ...start, sessionId: "s-child", runId: "r-c", agent: "reviewer" }),
      child({ type: "text", step: 0, text: "Looking" }),
      child({ type: "tool-call", step: 0, toolCallId: "c9", toolName: "grep", input: {} }),
      child({
        type: "task",
        taskId: "s-grandchild",
        toolCallId: "c9",
        event: { type: "text", step: 0, text: "deep" },
      }),
      child({
        type: "tool-result",
        step: 0,
        toolCallId: "c9",
        toolName: "grep",
        envelope: ok({ files: [] }),
      }),
      child({ type: "finish", status: "completed", finishReason: "stop", steps: 1, usage: {} }),
      { type: "tool-result", step: 0, toolCallId: "t1", toolName: "task", envelope: ok({ summary: "fine" }) },
    ]);
    expect(turn.items).toHaveLength(1);
    const task = cards(turn)[0]!.task!;
    expect(task).toMatchObject({ taskId: "s-child", agent: "reviewer", status: "completed" });
    expect(task.items.map((i) => i.kind)).toEqual(["text", "tool"]);
    const grep = task.items[1] as ToolCard;
    expect(grep.status).toBe("ok");
    expect(grep.task?.items).toEqual([{ kind: "text", step: 0, text: "deep" }]);
  });

  it("shows a child run whose task call is not in view on its own", () => {
    const turn = fold([
      { type: "task", taskId: "s-bg", event: { type: "text", step: 0, text: "in the background" } },
      { type: "task", taskId: "s-bg", event: { type: "text", step: 0, text: "!" } },
    ]);
    expect(turn.items).toEqual([
      {
        kind: "task",
        task: {
          taskId: "s-bg",
          agent: undefined,
          items: [{ kind: "text", step: 0, text: "in the background!" }],
          status: "running",
          error: undefined,
        },
      },
    ]);
  });

  it("redraws a recorded turn, and marks one that never finished as interrupted", () => {
    const events: RunEvent[] = [
      start,
      { type: "text", step: 0, text: "Working" },
      { type: "tool-call", step: 0, toolCallId: "c1", toolName: "bash", input: { command: "sleep 9" } },
    ];
    const interrupted = turnFromHistory({ runId: "r-1", prompt: "Go", events }, false);
    expect(interrupted).toMatchObject({ prompt: "Go", runId: "r-1", status: "interrupted" });
    expect(cards(interrupted)[0]?.status).toBe("stopped");
    expect(turnFromHistory({ runId: "r-1", prompt: "Go", events }, true).status).toBe("running");
    const finished = turnFromHistory(
      {
        runId: "r-1",
        prompt: "Go",
        events: [
          ...events,
          { type: "finish", status: "aborted", finishReason: "aborted", steps: 1, usage: {} },
        ],
      },
      false,
    );
    expect(finished.status).toBe("aborted");
  });

  const stepStart = (step: number): RunEvent => ({ type: "step-start", step });
  const stepFinish = (step: number, finishReason: string): RunEvent => ({
    type: "step-finish",
    step,
    finishReason,
    usage: {},
  });
  const failed: RunEvent = { type: "finish", status: "failed", finishReason: "error", steps: 1, usage: {} };
  const refused = (toolCallId: string, text: string): RunEvent => ({
    type: "tool-result",
    step: 0,
    toolCallId,
    toolName: "write",
    envelope: { type: "error", error_text: text, metadata: { duration_ms: 0 } },
  });
  /** Each item as a short line: its kind, text or call, and what marks it. */
  const marks = (turn: Turn): string[] =>
    turn.items.map((item) =>
      item.kind === "tool"
        ? `tool ${item.toolCallId} ${item.status}${item.argsCutOff ? " args-cut-off" : ""}`
        : item.kind === "text" || item.kind === "reasoning"
          ? `${item.kind} ${item.text}${item.cutOff ? " cut-off" : ""}`
          : item.kind,
    );

  it.each<[string, RunEvent[], string[]]>([
    [
      "a step that finished: nothing is cut off",
      [start, stepStart(0), { type: "text", step: 0, text: "Done." }, stepFinish(0, "stop")],
      ["text Done."],
    ],
    [
      "text at the output limit is cut off",
      [
        start,
        stepStart(0),
        { type: "text", step: 0, text: "The first part" },
        stepFinish(0, "length"),
        failed,
      ],
      ["text The first part cut-off"],
    ],
    [
      "reasoning at the output limit is cut off",
      [start, stepStart(0), { type: "reasoning", step: 0, text: "Hmm" }, stepFinish(0, "length"), failed],
      ["reasoning Hmm cut-off"],
    ],
    [
      "a dropped connection cuts off the text the step was streaming",
      [start, stepStart(0), { type: "text", step: 0, text: "Once upon" }, failed],
      ["text Once upon cut-off"],
    ],
    [
      "an earlier step's finished text stays whole when a later one is cut",
      [
        start,
        stepStart(0),
        { type: "text", step: 0, text: "Whole." },
        stepFinish(0, "stop"),
        stepStart(1),
        { type: "text", step: 1, text: "Half" },
        failed,
      ],
      ["text Whole.", "text Half cut-off"],
    ],
    [
      "text before a call at the output limit is whole; the call was not run",
      [
        start,
        stepStart(0),
        { type: "text", step: 0, text: "Writing." },
        {
          type: "tool-call",
          step: 0,
          toolCallId: "c1",
          toolName: "write",
          input: { path: "a", content: "x" },
        },
        refused("c1", "This write call was not run: its step ended at the output limit."),
        stepFinish(0, "length"),
        failed,
      ],
      ["text Writing.", "tool c1 not-run"],
    ],
    [
      "arguments cut off at the output limit",
      [
        start,
        stepStart(0),
        {
          type: "tool-call",
          step: 0,
          toolCallId: "c1",
          toolName: "write",
          input: '{"path":"a","content":"x',
        },
        refused("c1", "This write call was cut off."),
        stepFinish(0, "length"),
      ],
      ["tool c1 not-run args-cut-off"],
    ],
    [
      "arguments that are not JSON in a finished step: not run, not cut off",
      [
        start,
        stepStart(0),
        { type: "tool-call", step: 0, toolCallId: "c1", toolName: "write", input: "{path: a}" },
        refused("c1", "The arguments of this write call are not valid JSON."),
        stepFinish(0, "tool-calls"),
      ],
      ["tool c1 not-run"],
    ],
    [
      "a failed call of a finished step stays an error",
      [
        start,
        stepStart(0),
        {
          type: "tool-call",
          step: 0,
          toolCallId: "c1",
          toolName: "write",
          input: { path: "a", content: "x" },
        },
        refused("c1", "Permission denied"),
        stepFinish(0, "tool-calls"),
      ],
      ["tool c1 error"],
    ],
  ])("%s", (_, events, expected) => {
    expect(marks(fold(events))).toEqual(expected);
    // Redrawn from the record (a session opened later), the same.
    expect(marks(turnFromHistory({ runId: "r-1", prompt: "Do it", events }, false))).toEqual(expected);
  });

  it("a run interrupted mid-step (the app closed) shows the text it was streaming as cut off", () => {
    const events: RunEvent[] = [start, stepStart(0), { type: "text", step: 0, text: "Half an" }];
    expect(marks(turnFromHistory({ runId: "r-1", prompt: "Go", events }, false))).toEqual([
      "text Half an cut-off",
    ]);
    // Still running (the run goes on in this UI): not yet cut off.
    expect(marks(turnFromHistory({ runId: "r-1", prompt: "Go", events }, true))).toEqual(["text Half an"]);
  });

  it("shows the wait for a silent model until the run does anything else", () => {
    const waiting: RunEvent = {
      type: "model-waiting",
      step: 0,
      kind: "first-byte",
      elapsedMs: 1_200,
      timeoutMs: 120_000,
    };
    const turn = fold([start, waiting]);
    expect(turn.waiting).toEqual({ kind: "first-byte", elapsedMs: 1_200, timeoutMs: 120_000 });
    expect(waitingLabel(turn.waiting!, 10_900)).toBe("waiting for the model — 12 s");
    expect(fold([{ type: "text", step: 0, text: "Hi" }], turn).waiting).toBeUndefined();
    expect(fold([{ type: "model-resumed", step: 0, waitedMs: 3_000 }], turn).waiting).toBeUndefined();
    const failed = fold([{ type: "error", message: "stalled" }], turn);
    expect([failed.waiting, failed.error]).toEqual([undefined, "stalled"]);
    const paused = fold([{ ...waiting, kind: "idle", elapsedMs: 2_000 }], turn);
    expect(waitingLabel(paused.waiting!, 0)).toBe("waiting for the model to go on — 2 s");
    // Another tab's run has the embedded model: the turn says so, not that the model is silent.
    const queued = fold([{ ...waiting, kind: "model-busy", elapsedMs: 1_000 }], turn);
    expect(waitingLabel(queued.waiting!, 4_000)).toBe(
      "waiting for the model, which another run is using — 5 s",
    );
  });
});

describe("the session's token use", () => {
  it("takes the context from the latest step and adds up what every run used", () => {
    const step = (inputTokens: number, outputTokens: number): RunEvent => ({
      type: "step-finish",
      step: 0,
      finishReason: "stop",
      usage: { inputTokens, outputTokens },
    });
    const finish = (inputTokens: number, outputTokens: number): RunEvent => ({
      type: "finish",
      status: "completed",
      finishReason: "stop",
      steps: 2,
      usage: { inputTokens, outputTokens },
    });
    const first = fold([start, step(1_000, 50), step(1_200, 80), finish(2_200, 130)]);
    const second = fold([{ ...start, runId: "r-2" }, step(1_500, 40), finish(1_500, 40)], newTurn("Again"));
    expect(sessionUsage([first])).toEqual({ contextTokens: 1_280, inputTokens: 2_200, outputTokens: 130 });
    expect(sessionUsage([first, second])).toEqual({
      contextTokens: 1_540,
      inputTokens: 3_700,
      outputTokens: 170,
    });
    expect(sessionUsage([newTurn("nothing yet")])).toEqual({
      contextTokens: undefined,
      inputTokens: 0,
      outputTokens: 0,
    });
  });

  it("counts a summary asked for between runs, and not twice one a run made (its finish has it)", () => {
    const compaction = (reason: "manual" | "context-near-full"): RunEvent => ({
      type: "compaction",
      reason,
      messages: 4,
      tokensBefore: 9_000,
      tokensAfter: 3_000,
      summary: "notes",
      usage: { inputTokens: 700, outputTokens: 60 },
    });
    const finish: RunEvent = {
      type: "finish",
      status: "completed",
      finishReason: "stop",
      steps: 1,
      usage: { inputTokens: 1_700, outputTokens: 100 },
    };
    const inRun = fold([start, compaction("context-near-full"), finish]);
    expect(sessionUsage([inRun])).toMatchObject({ inputTokens: 1_700, outputTokens: 100 });
    const asked = fold([start, finish, compaction("manual")]);
    expect(sessionUsage([asked])).toMatchObject({ inputTokens: 2_400, outputTokens: 160 });
  });
});

describe("what a call that has not ended waits for", () => {
  const call = (id: string): RunEvent => ({
    type: "tool-call",
    step: 0,
    toolCallId: id,
    toolName: "write",
    input: { path: id, content: "x" },
  });
  const phase = (id: string, p: "queued" | "awaiting-approval" | "running"): RunEvent => ({
    type: "tool-phase",
    step: 0,
    toolCallId: id,
    toolName: "write",
    phase: p,
  });
  const stepStart = (step: number): RunEvent => ({ type: "step-start", step });
  const live = (events: RunEvent[], at: number[]): Turn =>
    events.reduce((turn, event, i) => applyToTurn(turn, event, at[i]), newTurn("Do it"));

  it.each([
    { name: "nothing, for a call that runs at once", events: [call("c2")], waiting: undefined, since: 10 },
    {
      name: "queued behind a call",
      events: [call("c2"), phase("c2", "queued")],
      waiting: "queued",
      since: 10,
    },
    {
      name: "its approval, once out of the queue",
      events: [call("c2"), phase("c2", "queued"), phase("c2", "awaiting-approval")],
      waiting: "awaiting-approval",
      since: 10,
    },
    {
      name: "nothing once let through: its time counts from then",
      events: [call("c2"), phase("c2", "queued"), phase("c2", "awaiting-approval"), phase("c2", "running")],
      waiting: undefined,
      since: 40,
    },
  ])("$name", ({ events, waiting, since }) => {
    const turn = live([start, stepStart(0), ...events], [0, 0, 10, 20, 30, 40]);
    const card = cards(turn)[0]!;
    expect(card.status).toBe("running");
    expect(card.waiting).toBe(waiting);
    expect(card.startedAt).toBe(since);
  });

  it("a task's call says what it waits for, under its task card", () => {
    const inTask = (event: RunEvent): RunEvent => ({
      type: "task",
      taskId: "s-child",
      toolCallId: "t1",
      event,
    });
    const turn = fold([
      start,
      stepStart(0),
      { type: "tool-call", step: 0, toolCallId: "t1", toolName: "task", input: { prompt: "go" } },
      inTask(stepStart(0)),
      inTask(call("c9")),
      inTask(phase("c9", "queued")),
    ]);
    const child = cards(turn)[0]!.task!.items.find((item): item is ToolCard => item.kind === "tool");
    expect(child).toMatchObject({ toolCallId: "c9", status: "running", waiting: "queued" });
  });

  it("a call that ends while it waits waits for nothing more", () => {
    const turn = fold([
      start,
      stepStart(0),
      call("c2"),
      phase("c2", "awaiting-approval"),
      { type: "tool-result", step: 0, toolCallId: "c2", toolName: "write", envelope: ok({}) },
    ]);
    expect(cards(turn)[0]).toMatchObject({ status: "ok", waiting: undefined });
  });
});

// A recorded turn is redrawn by folding its events with the items of earlier steps set aside
// (a run of 10,000 steps took 12 s to open when every event copied every item): each history
// here must come out exactly as folding every event into all the items does.
describe("a recorded turn redrawn step by step", () => {
  const finishStep = (step: number, finishReason = "tool-calls"): RunEvent => ({
    type: "step-finish",
    step,
    finishReason,
    usage,
  });
  const call = (step: number, id: string, toolName = "read"): RunEvent => ({
    type: "tool-call",
    step,
    toolCallId: id,
    toolName,
    input: { path: id },
  });
  const result = (step: number, id: string): RunEvent => ({
    type: "tool-result",
    step,
    toolCallId: id,
    toolName: "read",
    envelope: ok(id),
  });
  const text = (step: number, t: string): RunEvent => ({ type: "text", step, text: t });
  const finish: RunEvent = { type: "finish", status: "completed", finishReason: "stop", steps: 3, usage };
  const steps = (n: number): RunEvent[] =>
    Array.from({ length: n }, (_, s) => [
      { type: "step-start", step: s } as RunEvent,
      text(s, `Step ${s}`),
      call(s, `c${s}`),
      result(s, `c${s}`),
      finishStep(s),
    ]).flat();

  const histories: Array<[string, RunEvent[]]> = [
    ["steps of text and calls", [start, ...steps(5), finish]],
    ["no step events at all", [start, text(0, "a"), call(0, "x"), result(0, "x"), finish]],
    [
      "a step cut at the output limit, its text and call not run",
      [
        start,
        ...steps(2),
        { type: "step-start", step: 2 },
        text(2, "Half"),
        call(2, "late"),
        finishStep(2, "length"),
      ],
    ],
    [
      "a step that ended in an error: its calls are marked not run",
      [start, ...steps(2), { type: "step-start", step: 2 }, call(2, "e"), finishStep(2, "error"), finish],
    ],
    [
      "a result that arrives in a later step",
      [
        start,
        { type: "step-start", step: 0 },
        call(0, "slow"),
        finishStep(0),
        ...steps(3).slice(5),
        result(1, "slow"),
        finish,
      ],
    ],
    [
      "approvals, phases and refusals of an earlier step's call",
      [
        start,
        { type: "step-start", step: 0 },
        call(0, "q", "question"),
        finishStep(0),
        { type: "step-start", step: 1 },
        {
          type: "approval",
          step: 1,
          toolCallId: "q",
          toolName: "question",
          decision: "allow",
          reason: "yes",
        },
        { type: "tool-phase", step: 1, toolCallId: "q", toolName: "question", phase: "queued" },
        { type: "question-refused", step: 1, toolCallId: "q", message: "headless" },
        finish,
      ],
    ],
    [
      "a task's events after the step that started it",
      [
        start,
        { type: "step-start", step: 0 },
        call(0, "t1", "task"),
        finishStep(0),
        ...steps(2).slice(5),
        { type: "task", taskId: "s-child", toolCallId: "t1", event: text(0, "child says") },
        { type: "task", taskId: "s-child", toolCallId: "t1", event: finish },
        finish,
      ],
    ],
    [
      "a text that goes on after a step started again with the same number",
      [
        start,
        { type: "step-start", step: 0 },
        text(0, "one "),
        { type: "step-start", step: 0 },
        text(0, "two"),
        finishStep(0, "length"),
      ],
    ],
    [
      "a step number seen again, its calls then not run",
      [start, ...steps(2), { type: "step-start", step: 0 }, call(0, "again"), finishStep(0, "error")],
    ],
    [
      "notices, compaction and waits between steps",
      [
        start,
        ...steps(2),
        { type: "notice", message: "n" },
        { type: "model-waiting", step: 2, kind: "first-byte", elapsedMs: 5000, timeoutMs: 60000 },
        { type: "model-resumed", step: 2, waitedMs: 6000 },
        { type: "step-start", step: 2 },
        text(2, "after"),
        finishStep(2, "stop"),
        finish,
      ],
    ],
    [
      "a run that never ended, a call still running",
      [start, ...steps(3), { type: "step-start", step: 3 }, call(3, "open")],
    ],
  ];

  histories.push(
    [
      "a run that ended with an earlier step's call never answered",
      [start, { type: "step-start", step: 0 }, call(0, "never"), finishStep(0), ...steps(3).slice(5), finish],
    ],
    [
      "a failed call of a step number seen again, then that step not run",
      [
        start,
        { type: "step-start", step: 0 },
        call(0, "bad"),
        {
          type: "tool-result",
          step: 0,
          toolCallId: "bad",
          toolName: "read",
          envelope: { type: "error", error_text: "no", metadata: { duration_ms: 1 } },
        },
        finishStep(0),
        { type: "step-start", step: 0 },
        text(0, "again"),
        finishStep(0, "error"),
      ],
    ],
  );

  it.each(histories)("%s", (_name, events) => {
    // The reference: every event folded into all the items, as a live run is.
    const naive = events.reduce<Turn>((turn, event) => applyToTurn(turn, event), {
      ...newTurn("Do it"),
      runId: "r-1",
    });
    const recorded = { runId: "r-1", prompt: "Do it", events };
    expect(turnFromHistory(recorded, true)).toEqual(naive);
    expect(turnFromHistory(recorded, false)).toEqual(interruptTurn(naive));
  });
});
