import { randomBytes } from "node:crypto";
import type { Engine } from "../engine.ts";
import type { Session } from "../session/session.ts";
import { warmSpawner } from "../spawner/process-spawner.ts";
import { runAgentLoop, type LoopOutcome } from "./agent-loop.ts";
import { addUsage } from "./run-usage.ts";
import type { ModelMessage } from "ai";
import { DEFAULT_BUDGETS } from "./agent-manifest.ts";
import type { AgentManifest } from "./agent-manifest.ts";
import type { AgentRunResult, RunAgentOptions } from "./agent-run.ts";
import { ConversationWriter } from "./conversation-writer.ts";
import {
  describeModelFailure,
  maskModelSecrets,
  isConnectionDropped,
  isContextFull,
  isModelStalled,
  isToolsUnsupported,
} from "./model-failure.ts";
import { conversationView } from "./conversation-view.ts";
import { formatModelSpec } from "./model-spec.ts";
import { RunBudget } from "./run-budget.ts";
import { isLiveOnly, type RunEvent } from "./run-events.ts";
import { guardResolvedModel } from "./stall-guard.ts";
import { StepCollector } from "./step-collector.ts";
import { StepText } from "./step-text.ts";
import { SubagentRunner, type TaskLineage } from "./subagent-runner.ts";
import { ToolBridge } from "./tool-bridge.ts";
import { ToolVisibility } from "./tool-visibility.ts";
import { RunCompaction } from "./run-compaction.ts";
import { withServerWindow } from "./server-window.ts";
import { unsavedConversation, type UnsavedConversation } from "./unsaved-conversation.ts";
import { toolTokens } from "../tools/deferral.ts";
import { loadedTools } from "./loaded-tools.ts";
import { estimateTextTokens } from "../tools/token-estimate.ts";
import { stoppedBecause } from "./run-stopped.ts";
import { skillIndex } from "../skills/skill-index.ts";
import { errorMessage } from "../errors/error-message.ts";

const STOPPED_CALL =
  "The run stopped before this call finished; it may or may not have taken effect. Check before repeating it.";

function randomId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

/** A fresh id for a session `lathe run` can resume. */
export function newSessionId(): string {
  return randomId("s");
}

function systemPrompt(engine: Engine, agent: AgentManifest, extra: readonly string[]): string {
  return [
    agent.systemPrompt.trim(),
    ...extra.map((s) => s.trim()).filter(Boolean),
    `Workspace root: ${engine.root}`,
  ].join("\n\n");
}

/**
 * The system prompt's list of skills, read again from their folders when a run starts (so the
 * list and the skill tool agree); a folder that cannot be read is said, and the run goes on.
 */
function skillsSection(engine: Engine, emit: (event: RunEvent) => void): string | undefined {
  try {
    engine.skills.refresh();
  } catch (err) {
    emit({
      type: "notice",
      message: `The skills could not be read again (${errorMessage(err)}); the run goes on with the skills found when Lathe started.`,
    });
  }
  // A skill that broke since Lathe started (an edit while the app is open) is left out of the
  // list: its author is told why, once.
  for (const problem of engine.skills.untoldProblems())
    emit({ type: "notice", message: `A skill was skipped: ${problem.message}` });
  return skillIndex(engine.skills.skills());
}

/**
 * One agent turn: the prompt (after the session's history) goes to the model, which drives the
 * engine's tools until it answers, a budget stops it, or the signal aborts it. Events stream to
 * `onEvent` as they happen; the conversation and the events are recorded as they complete, so
 * the session can be resumed after a crash and replayed. Resolves when everything has stopped.
 */
export function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  return runWithin(options, undefined);
}

/** A run, or a task's run: `lineage` carries what it inherits from the run that started it. */
async function runWithin(
  options: RunAgentOptions,
  lineage: TaskLineage | undefined,
): Promise<AgentRunResult> {
  const id = (options.persist ?? true) ? (options.sessionId ?? newSessionId()) : undefined;
  // One run at a time in a conversation, whichever process runs it: held before anything is written.
  const lease =
    id === undefined
      ? undefined
      : options.engine.holdSessionForRun(id, (err) =>
          options.onEvent?.({
            type: "notice",
            message: `The hold on session ${id} could not be renewed (${errorMessage(err)}); another run may take the session over after a minute.`,
          }),
        );
  try {
    return await runInSession(options, lineage, id);
  } finally {
    try {
      lease?.release();
    } catch (err) {
      options.onEvent?.({
        type: "notice",
        message: `The hold on session ${id} could not be released (${errorMessage(err)}); another run can take the session a minute from now.`,
      });
    }
  }
}

async function runInSession(
  options: RunAgentOptions,
  lineage: TaskLineage | undefined,
  id: string | undefined,
): Promise<AgentRunResult> {
  const session = await options.engine.openSession({
    ...(id !== undefined ? { id } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.asker ? { asker: options.asker } : {}),
    // The agent's own rules bind its session, whatever engine it runs on (a task's also carry its
    // parent's denies): a host need not create an engine per agent for a manifest deny to hold.
    manifestRules: lineage ? lineage.sessionRules : options.agent.permissions,
    // …and a task's calls are let through no more easily than those of the run that started it.
    ...(lineage ? { ceiling: lineage.ceiling } : {}),
    agent: options.agent.id,
  });
  let unsaved: UnsavedConversation | undefined;
  try {
    if (!session.persistent) unsaved = unsavedConversation(session.id, options.engine.root);
    return await drive(options, session, lineage, unsaved);
  } finally {
    unsaved?.close();
    if (session.persistent) session.release();
    else await session.close();
  }
}

async function drive(
  options: RunAgentOptions,
  session: Session,
  lineage: TaskLineage | undefined,
  unsaved: UnsavedConversation | undefined,
): Promise<AgentRunResult> {
  const { engine, agent, model } = options;
  const runId = randomId("r");
  const controller = new AbortController();
  const forwardAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) forwardAbort();
  options.signal?.addEventListener("abort", forwardAbort, { once: true });

  // A local server is asked the window it runs the model with (when nothing said it), while the
  // run starts and its model is checked: awaited before the first request.
  const learning =
    options.contextTokens === undefined ? withServerWindow(model, controller.signal) : undefined;
  /** The model the run's tasks get when their agent names none: this one, with what it learned. */
  let taskModel = model;
  const modelName = formatModelSpec(model.spec);
  // A session that is not saved keeps the run's conversation in memory: a compaction reads it there.
  const store = session.persistent ? engine.conversations() : unsaved?.store;
  const resumed = session.persistent && store?.get(session.id) !== undefined;
  const output = model.acceptsImages ? { images: { sidecarDir: session.state.sidecarDir } } : {};
  // A compacted conversation is sent as its latest summary and the messages after it.
  const stored = store && resumed ? store.messages(session.id) : [];
  const history = store && resumed ? conversationView(stored, store.compactions(session.id), output) : [];
  /** The tools tool_search loaded in the session's earlier turns (each run opens its session anew). */
  const loadedBefore = loadedTools(stored);
  let writeFailed = false;
  const collector = new StepCollector();
  let writer: ConversationWriter | undefined;
  const texts = new StepText();
  let warmed = lineage !== undefined;
  /** The text the step was streaming is cut off: said once, as an empty `cutOff` text after it. */
  const markCutOff = (): void => {
    const open = collector.openText();
    if (open) emit({ type: open.type, step: open.step, text: "", cutOff: true });
  };
  const emit = (event: RunEvent): void => {
    // A step that ended at the output limit, or failed (an error event mid-answer, a stream that
    // ended without a finish), left its last text unfinished: marked before the step is recorded.
    if (event.type === "step-finish" && (event.finishReason === "length" || event.finishReason === "error"))
      markCutOff();
    // The agent will likely run commands: once its first request has gone to the model, the
    // process spawner starts while the model answers, off the path of both that request and the
    // first command (and while this process is about as small as it will be).
    if (!warmed && event.type === "step-start") {
      warmed = true;
      warmSpawner();
    }
    collector.add(event);
    if (!isLiveOnly(event)) writer?.event(event);
    if (event.type === "text") texts.add(event.step, event.text);
    options.onEvent?.(event);
    if (event.type === "step-finish") for (const m of collector.take(STOPPED_CALL)) writer?.message(m);
  };
  if (store) {
    store.begin(session.id, {
      agent: agent.id,
      model: modelName,
      // (The parent of a task that is not saved is in no store this one can point to.)
      ...(lineage && session.persistent ? { parentSessionId: lineage.parentSessionId } : {}),
    });
    writer = new ConversationWriter(store, session.id, runId, {
      ...(options.flushIntervalMs !== undefined ? { flushIntervalMs: options.flushIntervalMs } : {}),
      onError: (err) => {
        if (writeFailed) return;
        writeFailed = true;
        options.onEvent?.({
          type: "notice",
          message: `The session could not be saved (${errorMessage(err)}); the run goes on, but it cannot be resumed from here.`,
        });
      },
    });
  }

  const step = { current: 0 };
  const visibility = new ToolVisibility(agent.id, agent.tools, lineage?.visibility);
  const budget = new RunBudget(agent.id, agent.budgets, lineage?.budget);
  // Which tools the model is shown: all it may use, minus those deferred until tool_search loads them.
  let contextTokens = options.contextTokens ?? model.contextTokens;
  const exposure = engine.toolExposure(session, {
    visible: (id) => visibility.visible(id),
    ...(contextTokens !== undefined ? { contextTokens } : {}),
  });
  exposure.restore(loadedBefore);
  const bridge = new ToolBridge({
    session,
    registry: engine.registry,
    visibility,
    budget,
    signal: controller.signal,
    ...(options.toolStops ? { stops: options.toolStops } : {}),
    headless: options.asker === undefined,
    modelAcceptsImages: model.acceptsImages === true,
    step: () => step.current,
    emit,
  });
  // The `task` tool finds this run through its session while it runs.
  const tasks = new SubagentRunner({
    engine,
    session,
    agent,
    // Read when a task starts: by then the model carries the window its server said (or no
    // longer asks), so a task on it neither asks the server again nor repeats the run's notice.
    get model() {
      return taskModel;
    },
    visibility,
    budget,
    signal: controller.signal,
    roundsLeft: () => agent.budgets.maxRounds - (step.current + 1),
    depth: lineage?.depth ?? 0,
    inheritedDenies: lineage?.inheritedDenies ?? [],
    settings: options,
    runChild: runWithin,
  });
  const detachTasks = session.state.attachTaskHost(tasks);
  // A call whose changes cannot be checkpointed (a workspace too large to scan) is told, not hidden.
  const onSkipped = ({ sessionId, reason }: { sessionId: string; reason: string }): void => {
    if (sessionId === session.id) emit({ type: "notice", message: reason });
  };
  engine.events.on("CheckpointSkipped", onSkipped);
  emit({ type: "start", sessionId: session.id, runId, agent: agent.id, model: modelName, resumed });
  for (const message of options.notices ?? []) emit({ type: "notice", message });
  writer?.message({ role: "user", parts: [{ type: "text", text: options.prompt }] });
  // The prompt is stored before any tool runs, so every checkpoint of this run comes after it
  // (a rewind to before this prompt finds them by message number).
  writer?.flush();

  let deferred = exposure.deferredNotice();
  // The skills as they are now, listed only to an agent that may load them.
  const skills = visibility.visible("skill") ? skillsSection(engine, emit) : undefined;
  // A model that goes silent fails the step after its timeouts; a long wait is shown meanwhile.
  const guarded = guardResolvedModel(model, {
    onWaiting: (wait) => emit({ type: "model-waiting", step: step.current, ...wait }),
    onResumed: ({ waitedMs }) => emit({ type: "model-resumed", step: step.current, waitedMs }),
  });
  const maxOutputTokens = agent.budgets.maxOutputTokens ?? DEFAULT_BUDGETS.maxOutputTokens;
  // A conversation that outgrows the model's context is summarised (its older part) and goes on.
  const compaction =
    store && writer
      ? new RunCompaction({
          store,
          sessionId: session.id,
          runId,
          model: guarded,
          contextTokens,
          maxOutputTokens,
          signal: controller.signal,
          output,
          flush: () => writer?.flush(),
          intact: () => !writeFailed,
          emit,
        })
      : undefined;
  const initial: ModelMessage[] = [
    ...history,
    { role: "user", content: [{ type: "text", text: options.prompt }] },
  ];
  const instructionsFor = (tools: boolean): string =>
    systemPrompt(engine, agent, [
      ...(options.instructions ?? []),
      ...(tools && skills !== undefined ? [skills] : []),
      ...(tools && deferred !== undefined ? [deferred] : []),
    ]);
  /** What every request carries besides the conversation: the instructions and the tools shown. */
  const fixedTokens = (tools: boolean): number =>
    estimateTextTokens(instructionsFor(tools)) +
    (tools
      ? exposure.visibleIds().reduce((sum, id) => {
          const tool = exposure.definition(id);
          return sum + (tool ? toolTokens(tool) : 0);
        }, 0)
      : 0);
  const loopOnce = (tools: boolean, messages: ModelMessage[], firstStep: number): Promise<LoopOutcome> => {
    const watch = compaction?.watch(messages, fixedTokens(tools));
    return runAgentLoop({
      model: guarded,
      instructions: instructionsFor(tools),
      messages,
      tools: tools ? bridge.tools : undefined,
      activeTools: () => exposure.visibleIds(),
      callableTools: () => bridge.toolIds,
      started: (toolCallId) => bridge.started(toolCallId),
      maxRounds: agent.budgets.maxRounds - firstStep,
      firstStep,
      ...(watch ? { contextWatch: watch } : {}),
      stopReason: () => bridge.stopReason(),
      maxOutputTokens,
      signal: controller.signal,
      step,
      emit,
    });
  };
  /**
   * The model loop, compacting the conversation on the way: before a request near the context
   * window, when the loop stops for it between steps, and once after a request refused as too long.
   */
  const loop = async (tools: boolean): Promise<LoopOutcome> => {
    let total: LoopOutcome | undefined;
    for (;;) {
      const steps = total?.steps ?? 0;
      if (compaction) await compaction.ifNearFull(compaction.messages(initial), fixedTokens(tools));
      const outcome = await loopOnce(tools, compaction ? compaction.messages(initial) : initial, steps);
      total = total
        ? {
            ...outcome,
            steps: total.steps + outcome.steps,
            usage: addUsage(total.usage, outcome.usage),
            produced: total.produced || outcome.produced,
          }
        : outcome;
      if (compaction && outcome.compact) {
        compaction.readFromStore();
        continue;
      }
      if (compaction && outcome.status === "failed" && isContextFull(outcome.error)) {
        // What the refused step left (nothing, as a rule: the request was refused) is recorded first.
        markCutOff();
        for (const m of collector.take(STOPPED_CALL)) writer?.message(m);
        if ((await compaction.afterContextFull(fixedTokens(tools))) === undefined) continue;
      }
      return total;
    }
  };

  let outcome: LoopOutcome;
  try {
    // An embedded model loads here (a context too large for the memory free is refused), and what
    // its check notices, such as a context beyond what the model was trained for, is said once.
    const [checked, learned] = await Promise.all([
      options.preflight && model.preflight ? model.preflight(controller.signal) : undefined,
      learning,
    ]);
    for (const message of [...(checked ?? []), ...(learned?.notices ?? [])])
      emit({ type: "notice", message });
    if (learned) taskModel = learned.model;
    if (learned?.model.contextTokens !== undefined && contextTokens === undefined) {
      // The window the server said sizes the tools shown and when the conversation is summarised.
      contextTokens = learned.model.contextTokens;
      engine.toolExposure(session, { visible: (id) => visibility.visible(id), contextTokens });
      // A tool loaded earlier that only this window defers is loaded again too.
      exposure.restore(loadedBefore);
      deferred = exposure.deferredNotice();
      compaction?.knowWindow(contextTokens);
    }
    const plainChat = model.supportsTools === false;
    if (plainChat) {
      emit({
        type: "notice",
        message: `${modelName} cannot call tools, so this is a plain chat: the agent cannot read or change files.`,
      });
    }
    outcome = await loop(!plainChat);
    if (!plainChat && outcome.status === "failed" && !outcome.produced && isToolsUnsupported(outcome.error)) {
      emit({
        type: "notice",
        message: `${modelName} does not support tool calls, so this is a plain chat: the agent cannot read or change files. Pick a model with tool support for agent work.`,
      });
      outcome = await loop(false);
    }
  } catch (err) {
    // A compaction stopped by the signal leaves the session as it was: the run was stopped.
    outcome = controller.signal.aborted
      ? { status: "aborted", finishReason: "aborted", steps: 0, usage: {}, produced: false }
      : { status: "failed", finishReason: "error", steps: 0, usage: {}, produced: false, error: err };
  } finally {
    await bridge.idle();
    detachTasks();
    engine.events.off("CheckpointSkipped", onSkipped);
    await tasks.stopped(controller.signal.aborted);
    options.signal?.removeEventListener("abort", forwardAbort);
  }
  // A model that ended its turn without a word or a call is told, rather than passed off as done.
  if (outcome.status === "completed" && !outcome.produced) {
    emit({
      type: "notice",
      message: `${modelName} ended its turn without answering: no text and no tool call. Ask again, say more about what you want, or try another model.`,
    });
  }
  // A step cut short still leaves a valid history: its text (marked as cut off: a step that
  // finished was taken at its step-finish), and every call with a result.
  markCutOff();
  for (const m of collector.take(STOPPED_CALL)) writer?.message(m);
  const contextFull = outcome.status === "failed" && isContextFull(outcome.error);
  const notCompacted = contextFull ? compaction?.failure : undefined;
  const error =
    outcome.status === "failed"
      ? `${describeModelFailure(outcome.error, model)}${notCompacted !== undefined ? ` Lathe could not summarise the older conversation to make room: ${maskModelSecrets(notCompacted, model)}.` : ""}`
      : undefined;
  const dropped = outcome.status === "failed" && isConnectionDropped(outcome.error);
  const stalled = outcome.status === "failed" && !dropped && isModelStalled(outcome.error);
  const cause = dropped ? ("connection-dropped" as const) : stalled ? ("model-stalled" as const) : undefined;
  if (error !== undefined) emit({ type: "error", message: error, ...(cause ? { cause } : {}) });
  const because = outcome.status === "aborted" ? stoppedBecause(options.signal) : undefined;
  // The run's tokens: its steps' and those its summaries of the conversation took.
  const usage = compaction ? addUsage(outcome.usage, compaction.usage) : outcome.usage;
  emit({
    type: "finish",
    status: outcome.status,
    finishReason: outcome.finishReason,
    steps: outcome.steps,
    usage,
    ...(because !== undefined ? { stoppedBecause: because } : {}),
  });
  writer?.close();
  return {
    sessionId: session.id,
    runId,
    status: outcome.status,
    text: texts.toString(),
    steps: outcome.steps,
    usage,
    ...(error !== undefined ? { error } : {}),
    ...(contextFull ? { contextFull: true } : {}),
    ...(dropped ? { connectionDropped: true } : {}),
  };
}
