import type { ChatTurn } from "../../shared/chat-schemas.ts";
import type { Envelope } from "../../shared/envelope-schema.ts";
import type { RunEvent, RunStatus, RunUsage } from "../../shared/run-event-schema.ts";

/**
 * running, then ok (it ran), error (it failed), denied (the person or a rule said no), stopped
 * (the run ended first), not-run (never started: its arguments were not JSON, or its step ended
 * before the model finished it).
 */
export type CardStatus = "running" | "ok" | "error" | "denied" | "stopped" | "not-run";

/** A child run started by a `task` call, shown nested under it. */
export interface TaskRun {
  taskId: string;
  agent: string | undefined;
  items: TranscriptItem[];
  status: "running" | RunStatus;
  error: string | undefined;
  /** The step the model is streaming (started, not yet finished), if any. */
  openStep?: number | undefined;
}

/** One tool call as a card: what was asked, what the approval stage said, and the envelope. */
export interface ToolCard {
  kind: "tool";
  toolCallId: string;
  toolName: string;
  /** The arguments; the text the model wrote when it was not JSON (then the call never ran). */
  input: unknown;
  /** The model step that made the call. */
  step: number;
  /** Its arguments were cut off at the output limit while the model wrote them. */
  argsCutOff?: boolean;
  status: CardStatus;
  approval: { decision: "allow" | "deny"; reason: string } | undefined;
  /** Why a question could not be put to anyone. */
  refusal: string | undefined;
  envelope: Envelope | undefined;
  task: TaskRun | undefined;
  /**
   * When the call started running, as this page saw it live (not known for a redrawn session):
   * when it was made, or, for one that waited, when it was let through.
   */
  startedAt: number | undefined;
  /**
   * While it is "running", what it waits for instead, when it does (live only): `queued` behind
   * calls made before it, `awaiting-approval` for a person's answer.
   */
  waiting?: "queued" | "awaiting-approval" | undefined;
}

/**
 * `cutOff`: the model never finished this text (its step ended at the output limit, the
 * connection dropped, the run failed or was stopped) — the engine stores it marked the same way.
 */
export type TranscriptItem =
  | { kind: "text"; step: number; text: string; cutOff?: boolean }
  | { kind: "reasoning"; step: number; text: string; cutOff?: boolean }
  | { kind: "notice"; message: string }
  /** The older conversation was summarised here: the model is sent `summary` in place of `messages` messages. */
  | {
      kind: "compaction";
      reason: "context-near-full" | "context-full" | "manual";
      messages: number;
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
      /** What the summary requests used (a run's own finish counts those it made). */
      usage?: RunUsage;
    }
  | ToolCard
  /** A child run whose `task` call is not in this transcript (a background task, say). */
  | { kind: "task"; task: TaskRun };

/** The model has been silent this long when the event came (the view counts on from there). */
export interface ModelWait {
  kind: "first-byte" | "idle" | "model-busy";
  elapsedMs: number;
  timeoutMs: number;
}

/** What the running turn says while the model is silent, `shownForMs` after the event came. */
export function waitingLabel(wait: ModelWait, shownForMs: number): string {
  const seconds = Math.floor((wait.elapsedMs + Math.max(0, shownForMs)) / 1_000);
  const what =
    wait.kind === "model-busy"
      ? "waiting for the model, which another run is using"
      : wait.kind === "first-byte"
        ? "waiting for the model"
        : "waiting for the model to go on";
  return `${what} — ${seconds} s`;
}

/** One prompt of the person and what the run it started did. */
export interface Turn {
  prompt: string;
  runId: string | undefined;
  items: TranscriptItem[];
  /** Set while the model is silent past a moment; anything the run does next clears it. */
  waiting?: ModelWait | undefined;
  /** interrupted: the record ends without a finish (the app closed or crashed mid-run). */
  status: "running" | RunStatus | "interrupted";
  error: string | undefined;
  /** Why it failed, when the run said: "connection-dropped" and "model-stalled" can go on as it is. */
  errorCause?: "connection-dropped" | "model-stalled" | undefined;
  /** Why it was stopped, when the host said ("the tab that started it was closed"). */
  stoppedBecause?: string | undefined;
  usage: RunUsage | undefined;
  /** The latest step's usage: its input tokens are what the model's context held then. */
  stepUsage?: RunUsage | undefined;
  /** The step the model is streaming (started, not yet finished), if any. */
  openStep?: number | undefined;
}

export function newTurn(prompt: string): Turn {
  return { prompt, runId: undefined, items: [], status: "running", error: undefined, usage: undefined };
}

function newTask(taskId: string): TaskRun {
  return { taskId, agent: undefined, items: [], status: "running", error: undefined };
}

function updateCard(
  items: readonly TranscriptItem[],
  toolCallId: string,
  change: (card: ToolCard) => ToolCard,
): TranscriptItem[] {
  let index = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "tool" && item.toolCallId === toolCallId) {
      index = i;
      break;
    }
  }
  if (index === -1) return [...items];
  return items.map((item, i) => (i === index ? change(item as ToolCard) : item));
}

/** The card's status once its envelope is in. */
function resultStatus(card: ToolCard, envelope: Envelope, denied: boolean): CardStatus {
  if (envelope.type === "output") return "ok";
  // Arguments that are not JSON are refused before any tool runs.
  if (typeof card.input === "string") return "not-run";
  // Refused by the policy (a rule, the watchdog) or by a person: "denied", as the Audit view says.
  return denied || card.approval?.decision === "deny" ? "denied" : "error";
}

function appendText(
  items: readonly TranscriptItem[],
  kind: "text" | "reasoning",
  step: number,
  text: string,
): TranscriptItem[] {
  const last = items.at(-1);
  if (last && last.kind === kind && last.step === step) {
    return [...items.slice(0, -1), { kind, step, text: last.text + text }];
  }
  return [...items, { kind, step, text }];
}

function applyTask(
  items: readonly TranscriptItem[],
  event: Extract<RunEvent, { type: "task" }>,
  now: number | undefined,
): TranscriptItem[] {
  const cardIndex = items.findIndex(
    (item) =>
      item.kind === "tool" &&
      ((event.toolCallId !== undefined && item.toolCallId === event.toolCallId) ||
        item.task?.taskId === event.taskId),
  );
  if (cardIndex !== -1) {
    return items.map((item, i) =>
      i === cardIndex && item.kind === "tool"
        ? { ...item, task: applyToTask(item.task ?? newTask(event.taskId), event.event, now) }
        : item,
    );
  }
  const taskIndex = items.findIndex((item) => item.kind === "task" && item.task.taskId === event.taskId);
  if (taskIndex !== -1) {
    return items.map((item, i) =>
      i === taskIndex && item.kind === "task"
        ? { kind: "task", task: applyToTask(item.task, event.event, now) }
        : item,
    );
  }
  return [...items, { kind: "task", task: applyToTask(newTask(event.taskId), event.event, now) }];
}

/**
 * Whether the calls of a step that ended with this finish reason were run: the AI SDK runs them
 * only when the model finished the step (the engine's `stepRunsItsCalls`, same rule).
 */
function stepRanItsCalls(finishReason: string): boolean {
  return finishReason === "stop" || finishReason === "tool-calls";
}

/** The last text or reasoning of `step`, marked as cut off when nothing of that step came after it. */
function cutOffLastText(items: readonly TranscriptItem[], step: number): TranscriptItem[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === "notice" || item.kind === "compaction" || item.kind === "task") continue;
    if ((item.kind === "text" || item.kind === "reasoning") && item.step === step)
      return items.map((it, at) => (at === i ? { ...item, cutOff: true } : it));
    break;
  }
  return [...items];
}

/**
 * A step ended: text it ended in mid-answer (at the output limit) is cut off; its calls that
 * did not run (the SDK runs none of a step the model did not finish) are marked not run, and
 * arguments that were cut off as such.
 */
function finishStep(items: readonly TranscriptItem[], step: number, finishReason: string): TranscriptItem[] {
  const cut = finishReason === "length" ? cutOffLastText(items, step) : [...items];
  if (stepRanItsCalls(finishReason)) return cut;
  return cut.map((item) =>
    item.kind === "tool" && item.step === step && (item.status === "error" || item.status === "not-run")
      ? {
          ...item,
          status: "not-run",
          ...(finishReason === "length" && typeof item.input === "string" ? { argsCutOff: true } : {}),
        }
      : item,
  );
}

/** A run ended (or will get no more events) mid-step: the text that step was streaming is cut off. */
function endOpenStep(items: readonly TranscriptItem[], openStep: number | undefined): TranscriptItem[] {
  return openStep === undefined ? [...items] : cutOffLastText(items, openStep);
}

/** Cards still running when their run ended did not finish. */
function stopRunning(items: readonly TranscriptItem[]): TranscriptItem[] {
  return items.map((item) =>
    item.kind === "tool" && item.status === "running" ? { ...item, status: "stopped" } : item,
  );
}

/** Fold one run event into a list of items (a turn's, or a child run's); `now` stamps calls seen live. */
function applyToItems(items: readonly TranscriptItem[], event: RunEvent, now?: number): TranscriptItem[] {
  switch (event.type) {
    case "text":
    case "reasoning":
      return appendText(items, event.type, event.step, event.text);
    case "notice":
      return [...items, { kind: "notice", message: event.message }];
    case "compaction": {
      const { type: _type, ...rest } = event;
      return [...items, { kind: "compaction", ...rest }];
    }
    case "tool-call":
      return [
        ...items,
        {
          kind: "tool",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.input,
          step: event.step,
          status: "running",
          approval: undefined,
          refusal: undefined,
          envelope: undefined,
          task: undefined,
          startedAt: now,
        },
      ];
    case "approval":
      return updateCard(items, event.toolCallId, (card) => ({
        ...card,
        approval: { decision: event.decision, reason: event.reason },
      }));
    case "tool-phase":
      return updateCard(items, event.toolCallId, (card) =>
        event.phase === "running"
          ? { ...card, waiting: undefined, startedAt: now ?? card.startedAt }
          : { ...card, waiting: event.phase },
      );
    case "question-refused":
      return updateCard(items, event.toolCallId, (card) => ({ ...card, refusal: event.message }));
    case "tool-result":
      return updateCard(items, event.toolCallId, (card) => ({
        ...card,
        envelope: event.envelope,
        status: resultStatus(card, event.envelope, event.denied === true),
        waiting: undefined,
      }));
    case "task":
      return applyTask(items, event, now);
    default:
      return [...items];
  }
}

/** Fold one event into a child run. */
function applyToTask(task: TaskRun, event: RunEvent, now?: number): TaskRun {
  switch (event.type) {
    case "start":
      return { ...task, agent: event.agent };
    case "error":
      return { ...task, error: event.message };
    case "step-start":
      return { ...task, openStep: event.step };
    case "step-finish":
      return { ...task, openStep: undefined, items: finishStep(task.items, event.step, event.finishReason) };
    case "finish":
      return {
        ...task,
        status: event.status,
        openStep: undefined,
        items: stopRunning(endOpenStep(task.items, task.openStep)),
      };
    default:
      return { ...task, items: applyToItems(task.items, event, now) };
  }
}

/** Fold one event into a turn; `now` (the page's clock) stamps tool calls seen live. */
export function applyToTurn(turn: Turn, event: RunEvent, now?: number): Turn {
  if (event.type === "model-waiting") {
    return { ...turn, waiting: { kind: event.kind, elapsedMs: event.elapsedMs, timeoutMs: event.timeoutMs } };
  }
  if (turn.waiting !== undefined) return applyToTurn({ ...turn, waiting: undefined }, event, now);
  switch (event.type) {
    case "start":
      return { ...turn, runId: event.runId };
    case "error":
      return { ...turn, error: event.message, errorCause: event.cause };
    case "finish":
      return {
        ...turn,
        status: event.status,
        stoppedBecause: event.stoppedBecause,
        usage: event.usage,
        openStep: undefined,
        items: stopRunning(endOpenStep(turn.items, turn.openStep)),
      };
    case "step-start":
      return { ...turn, openStep: event.step };
    case "step-finish":
      return {
        ...turn,
        stepUsage: event.usage,
        openStep: undefined,
        items: finishStep(turn.items, event.step, event.finishReason),
      };
    default:
      return { ...turn, items: applyToItems(turn.items, event, now) };
  }
}

/** How full the model's context is and what the session has used, from its turns. */
interface SessionUsage {
  /** Tokens in the context at the latest step (its input plus what it wrote), when reported. */
  contextTokens: number | undefined;
  inputTokens: number;
  outputTokens: number;
}

export function sessionUsage(turns: readonly Turn[]): SessionUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let contextTokens: number | undefined;
  for (const turn of turns) {
    inputTokens += turn.usage?.inputTokens ?? 0;
    outputTokens += turn.usage?.outputTokens ?? 0;
    // A summary asked for between runs is in no run's usage: its own counts.
    for (const item of turn.items) {
      if (item.kind !== "compaction" || item.reason !== "manual") continue;
      inputTokens += item.usage?.inputTokens ?? 0;
      outputTokens += item.usage?.outputTokens ?? 0;
    }
    const step = turn.stepUsage;
    if (step?.inputTokens !== undefined) contextTokens = step.inputTokens + (step.outputTokens ?? 0);
  }
  return { contextTokens, inputTokens, outputTokens };
}

/** A turn that will not get the rest of its events (its run ended unseen): marked interrupted. */
export function interruptTurn(turn: Turn): Turn {
  return turn.status === "running"
    ? {
        ...turn,
        status: "interrupted",
        openStep: undefined,
        items: stopRunning(endOpenStep(turn.items, turn.openStep)),
      }
    : turn;
}

/**
 * Whether folding `event` into `tail`, the items of the step being folded, gives what folding it
 * into all the turn's items would, the items before the step (`before` the last of them, `steps`
 * their steps) staying as they are. Appending does; so does changing an item the tail holds. A
 * turn's end (running cards stop) and a task's events (its card may be in any step) do not.
 */
function foldsIntoTail(
  event: RunEvent,
  tail: readonly TranscriptItem[],
  before: TranscriptItem | undefined,
  steps: ReadonlySet<number>,
): boolean {
  switch (event.type) {
    case "finish":
    case "task":
      return false;
    case "text":
    case "reasoning":
      return tail.length > 0 || !(before?.kind === event.type && before.step === event.step);
    case "approval":
    case "tool-phase":
    case "question-refused":
    case "tool-result":
      return tail.some((item) => item.kind === "tool" && item.toolCallId === event.toolCallId);
    case "step-finish":
      return event.finishReason !== "length" && !steps.has(event.step);
    default:
      // Appended (a call, a notice, a compaction), or not an item at all (step-start, errors, waits).
      return true;
  }
}

/**
 * A recorded turn redrawn: its events folded in order; one that never finished is marked
 * interrupted. Folding copies the items for each event (a live turn's items keep their identity
 * for React), so a long run's tens of thousands of events would copy tens of thousands of items
 * each (12 s for 20,000 messages, the chat frozen meanwhile): the items of the steps before are
 * set aside and each event is folded into its own step's, unless it may touch the ones set aside.
 */
export function turnFromHistory(recorded: ChatTurn, running: boolean): Turn {
  let turn: Turn = { ...newTurn(recorded.prompt), runId: recorded.runId };
  const setAside: TranscriptItem[][] = [];
  const setAsideSteps = new Set<number>();
  const all = (): TranscriptItem[] =>
    setAside.length === 0 ? turn.items : [...setAside.flat(), ...turn.items];
  for (const event of recorded.events) {
    if (event.type === "step-start" && turn.items.length > 0) {
      for (const item of turn.items) if ("step" in item) setAsideSteps.add(item.step);
      setAside.push(turn.items);
      turn = { ...turn, items: [] };
    } else if (
      setAside.length > 0 &&
      !foldsIntoTail(event, turn.items, setAside.at(-1)?.at(-1), setAsideSteps)
    ) {
      turn = { ...turn, items: all() };
      setAside.length = 0;
      setAsideSteps.clear();
    }
    turn = applyToTurn(turn, event);
  }
  turn = { ...turn, items: all() };
  return running ? turn : interruptTurn(turn);
}
