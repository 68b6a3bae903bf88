import {
  InvalidToolInputError,
  isStepCount,
  streamText,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from "ai";
import { ModelOutputLimitError } from "./model-output-limit-error.ts";
import { estimateTextTokens } from "../tools/token-estimate.ts";
import {
  cutOffToolCallText,
  invalidToolCallText,
  loadedSinceText,
  awaitsLoading,
  refusedCallEnvelope,
  stepRunsItsCalls,
  unfinishedStepCallText,
  unrunToolCallText,
  withInvalidCallTexts,
  withUnrunCallResults,
  type RunToolNames,
} from "./invalid-tool-call.ts";
import type { RunEvent, RunStatus, RunUsage } from "./run-events.ts";
import { addUsage, runUsage } from "./run-usage.ts";

interface AgentLoopOptions {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  /** The bridged tools; none means a plain chat. */
  tools: ToolSet | undefined;
  /** The tools the model is shown in the coming step (deferred ones appear once tool_search loads them). */
  activeTools?: () => string[];
  /** The tools the agent may call (shown or deferred): what a refused call's text names. */
  callableTools?: () => readonly string[];
  maxRounds: number;
  /** Whether the tools' bridge started this call (it announces the calls it runs itself). */
  started?: (toolCallId: string) => boolean;
  /** Why the run must stop after the current step, if it must (the model is going round in circles). */
  stopReason?: () => Error | undefined;
  /** Tokens the model may write in one step. */
  maxOutputTokens?: number;
  signal: AbortSignal;
  /** The step in progress, shared with the tool bridge so its events carry it. */
  step: { current: number };
  /** The number of this loop's first step (a loop that goes on after a compaction counts on). */
  firstStep?: number;
  /**
   * Stop after a step that made calls once the conversation reaches `limitTokens` (estimated:
   * the last step's reported input tokens plus what it added, or `initialTokens` plus what every
   * step added), so the caller can compact it and go on: the outcome says `compact`.
   */
  contextWatch?: { initialTokens: number; limitTokens: number; canStop(): boolean };
  emit(event: RunEvent): void;
}

export interface LoopOutcome {
  status: RunStatus;
  finishReason: string;
  steps: number;
  usage: RunUsage;
  /** Whether anything reached the host (text, reasoning, a tool call) — a retry must not repeat it. */
  produced: boolean;
  error?: unknown;
  /** The loop stopped, mid-work, because the conversation neared the context (see `contextWatch`). */
  compact?: true;
}

/**
 * One run of the model loop with `streamText`: it streams text and reasoning as events, lets the
 * SDK execute tool calls through the bridged tools (which emit the call, the approval and the
 * result events), stops after `maxRounds` steps, and stops at once when the signal aborts.
 * Failures come back in the outcome, never as a throw, so the caller decides what to tell.
 *
 * A step cut off at the output limit while the model made calls does not end the run: the SDK
 * runs none of its calls and stops its loop there, so each call is answered as not run (or as cut
 * off) and the loop goes on from that history with a fresh `streamText`, within `maxRounds`.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopOutcome> {
  const { emit, step } = options;
  const activeTools = options.tools ? options.activeTools : undefined;
  const tools = options.tools;
  const names: RunToolNames = {
    callable: () => options.callableTools?.() ?? Object.keys(tools ?? {}),
    shown: () => activeTools?.() ?? Object.keys(tools ?? {}),
  };
  // Calls the SDK refused before any tool ran (an unknown or unloaded tool, arguments that are
  // not JSON), by tool call id: what they are told instead of the SDK's own error text.
  const refused = new Map<string, string>();
  // Of those, the ones whose arguments are not JSON, and what they are told instead when their
  // step ended at the output limit: then the arguments were cut off, not mistyped.
  const ifCutOff = new Map<string, string>();
  const cutOff = new Set<string>();
  // Of those, the ones whose tool was deferred and not loaded yet, by tool name: once their step
  // is over (a tool_search in it may have loaded the tool since), what they are told is settled.
  const unloaded = new Map<string, string>();
  const settleUnloaded = (): void => {
    const shown = names.shown();
    for (const [toolCallId, toolName] of unloaded) {
      if (shown.includes(toolName)) refused.set(toolCallId, loadedSinceText(toolName));
    }
    unloaded.clear();
  };
  const refusalText = (toolCallId: string): string | undefined =>
    (cutOff.has(toolCallId) ? ifCutOff.get(toolCallId) : undefined) ?? refused.get(toolCallId);
  const refusalTexts = (): Map<string, string> =>
    new Map([...refused.keys()].map((id) => [id, refusalText(id) as string]));
  /** Note the refused calls of a step that ended at the output limit as cut off. */
  const noteCutOff = (finishReason: string, toolCallIds: Iterable<string>): void => {
    if (finishReason !== "length") return;
    for (const id of toolCallIds) if (ifCutOff.has(id)) cutOff.add(id);
  };
  // Whether the last step left the conversation near the context window (see `contextWatch`).
  let nearFull = false;
  const watch = options.contextWatch;
  const nearsContext = ({
    steps,
  }: {
    steps: ReadonlyArray<{ content: unknown; usage: { inputTokens?: number | undefined } }>;
  }): boolean => {
    const last = steps.at(-1);
    if (watch === undefined || last === undefined || !watch.canStop()) return false;
    const added = (content: unknown): number => estimateTextTokens(JSON.stringify(content) ?? "");
    const byEstimate = steps.reduce((sum, s) => sum + added(s.content), watch.initialTokens);
    const byUsage = (last.usage.inputTokens ?? 0) + added(last.content);
    nearFull = Math.max(byEstimate, byUsage) >= watch.limitTokens;
    return nearFull;
  };
  /** The SDK's loop from `messages`, for at most `rounds` steps. */
  const streamFrom = (messages: ModelMessage[], rounds: number) =>
    streamText({
      model: options.model,
      instructions: options.instructions,
      messages,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(tools
        ? {
            prepareStep: ({
              messages,
              steps,
            }: {
              messages: ModelMessage[];
              steps: ReadonlyArray<{
                finishReason: string;
                content: ReadonlyArray<{ type: string; toolCallId?: string }>;
              }>;
            }) => {
              for (const done of steps) {
                const calls = done.content.flatMap((p) =>
                  p.type === "tool-call" && p.toolCallId !== undefined ? [p.toolCallId] : [],
                );
                noteCutOff(done.finishReason, calls);
              }
              settleUnloaded();
              return {
                ...(activeTools ? { activeTools: activeTools() } : {}),
                ...(refused.size > 0 ? { messages: withInvalidCallTexts(messages, refusalTexts()) } : {}),
              };
            },
            // No repair: only note what the refused call is to be told (it comes before its tool-error).
            repairToolCall: async ({
              toolCall,
              error,
            }: {
              toolCall: { toolCallId: string; toolName: string };
              error: unknown;
            }) => {
              refused.set(toolCall.toolCallId, invalidToolCallText(toolCall.toolName, error, names));
              if (awaitsLoading(toolCall.toolName, error, names))
                unloaded.set(toolCall.toolCallId, toolCall.toolName);
              if (InvalidToolInputError.isInstance(error))
                ifCutOff.set(
                  toolCall.toolCallId,
                  cutOffToolCallText(toolCall.toolName, options.maxOutputTokens),
                );
              return null;
            },
          }
        : {}),
      stopWhen: [isStepCount(rounds), () => options.stopReason?.() !== undefined, nearsContext],
      ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
      abortSignal: options.signal,
      maxRetries: 1,
      // Errors arrive as stream parts below; the default handler would print them to the console.
      onError: () => undefined,
    });
  const outcome: LoopOutcome = {
    status: "completed",
    finishReason: "unknown",
    steps: 0,
    usage: {},
    produced: false,
  };
  let lastStepReason = "";
  let lastStepOutputTokens: number | undefined;
  // Results of refused calls wait for the end of their step: its finish reason says what they are told.
  let held: Array<{ toolCallId: string; toolName: string; step: number }> = [];
  // The step's whole calls the SDK has not answered yet: it runs none of a step that ends other
  // than by the model finishing it, and such a call would otherwise vanish from events and history.
  let unanswered = new Map<string, { toolName: string; input: unknown }>();
  // The client calls of the step in progress, and whether the last finished step had any.
  let stepCalls = 0;
  let lastStepCalled = false;
  // The whole calls of the last finished step that were not run, with what each was told.
  let lastUnrun = new Map<string, { toolName: string; text: string }>();
  /** Announce a whole call the SDK did not run, answered with `text` (why it was not run). */
  const emitNotRun = (toolCallId: string, toolName: string, input: unknown, text: string): void => {
    emit({ type: "tool-call", step: step.current, toolCallId, toolName, input });
    emit({
      type: "tool-result",
      step: step.current,
      toolCallId,
      toolName,
      envelope: refusedCallEnvelope(text),
    });
  };
  const emitUnrun = (finishReason: string, rawReason: string | undefined): void => {
    lastUnrun = new Map();
    if (!stepRunsItsCalls(finishReason)) {
      for (const [toolCallId, { toolName, input }] of unanswered) {
        const text = unrunToolCallText(toolName, finishReason, rawReason);
        emitNotRun(toolCallId, toolName, input, text);
        lastUnrun.set(toolCallId, { toolName, text });
      }
    }
    unanswered = new Map();
  };
  const emitHeld = (): void => {
    // After the step's calls have run (or it broke off): whichever of this and the next step's
    // prepareStep comes first settles the texts, before any call of a later step runs.
    settleUnloaded();
    for (const call of held) {
      emit({
        type: "tool-result",
        step: call.step,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        envelope: refusedCallEnvelope(refusalText(call.toolCallId) ?? ""),
      });
    }
    held = [];
  };
  const failWith = (error: unknown): void => {
    if (options.signal.aborted) {
      outcome.status = "aborted";
      outcome.finishReason = "aborted";
    } else {
      outcome.status = "failed";
      outcome.finishReason = "error";
      outcome.error = error;
    }
  };
  const first = options.firstStep ?? 0;
  let messages = options.messages;
  for (;;) {
    const result = streamFrom(messages, options.maxRounds - outcome.steps);
    try {
      for await (const part of result.fullStream) {
        switch (part.type) {
          case "start-step":
            step.current = first + outcome.steps;
            emit({ type: "step-start", step: step.current });
            break;
          case "text-delta":
            if (part.text === "") break;
            outcome.produced = true;
            emit({ type: "text", step: step.current, text: part.text });
            break;
          case "reasoning-delta":
            if (part.text === "") break;
            outcome.produced = true;
            emit({ type: "reasoning", step: step.current, text: part.text });
            break;
          case "tool-call":
            outcome.produced = true;
            if (!part.providerExecuted) stepCalls++;
            // Valid calls are announced by the bridge when they are dispatched; the SDK refuses the
            // rest (an unknown or hidden tool, input that is not JSON) before any tool runs.
            if (!part.invalid && !part.providerExecuted)
              unanswered.set(part.toolCallId, { toolName: part.toolName, input: part.input });
            if (part.invalid) {
              emit({
                type: "tool-call",
                step: step.current,
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: part.input,
              });
            }
            break;
          case "tool-result":
            unanswered.delete(part.toolCallId);
            break;
          case "tool-error": {
            unanswered.delete(part.toolCallId);
            if (refused.has(part.toolCallId)) {
              held.push({ toolCallId: part.toolCallId, toolName: part.toolName, step: step.current });
              break;
            }
            const text =
              typeof part.error === "string"
                ? part.error
                : part.error instanceof Error
                  ? part.error.message
                  : String(part.error);
            emit({
              type: "tool-result",
              step: step.current,
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              envelope: { type: "error", error_text: text, metadata: { duration_ms: 0 } },
            });
            break;
          }
          case "finish-step":
            noteCutOff(
              part.finishReason,
              held.map((call) => call.toolCallId),
            );
            emitHeld();
            emitUnrun(part.finishReason, part.rawFinishReason);
            lastStepCalled = stepCalls > 0;
            stepCalls = 0;
            lastStepReason = part.finishReason;
            lastStepOutputTokens = part.usage.outputTokens;
            emit({
              type: "step-finish",
              step: step.current,
              finishReason: part.finishReason,
              usage: runUsage(part.usage),
            });
            outcome.steps++;
            // Counted step by step: a run that fails later still used these (the SDK's total
            // comes only with a finish, which a failed stream never sends).
            outcome.usage = addUsage(outcome.usage, runUsage(part.usage));
            // What happens before the next step's first part (waiting for the model) belongs to it.
            step.current = first + outcome.steps;
            break;
          case "finish":
            outcome.finishReason = part.finishReason;
            break;
          case "abort":
            outcome.status = "aborted";
            outcome.finishReason = "aborted";
            break;
          case "error":
            failWith(part.error);
            break;
          default:
            break;
        }
      }
    } catch (err) {
      // The stream itself broke (the SDK may throw where it would send an error part).
      failWith(err);
      break;
    }
    // The SDK ends its loop at a step cut off at the output limit whose whole calls it did not
    // run; each is answered now, so the model, told what was not run, goes on from there.
    const goOn =
      outcome.status === "completed" &&
      lastStepReason === "length" &&
      lastUnrun.size > 0 &&
      outcome.steps < options.maxRounds &&
      options.stopReason?.() === undefined &&
      !options.signal.aborted;
    if (!goOn) break;
    messages = [...messages, ...withUnrunCallResults(await result.responseMessages, lastUnrun)];
  }
  // A step that never finished (an error, an abort) still answers its refused calls.
  emitHeld();
  if (options.signal.aborted && outcome.status !== "failed") {
    outcome.status = "aborted";
    outcome.finishReason = "aborted";
  }
  // …and the whole calls the model made in it before it broke off, which were not run: they are
  // kept in the history as the model's, answered as not run, so a resume knows of them.
  for (const [toolCallId, { toolName, input }] of unanswered) {
    if (options.started?.(toolCallId)) continue;
    const why = outcome.status === "aborted" ? "aborted" : "failed";
    emitNotRun(toolCallId, toolName, input, unfinishedStepCallText(toolName, why));
  }
  unanswered = new Map();
  const stopped = options.stopReason?.();
  // Stopped to compact: the model was still at work (its last step made calls) and goes on after.
  if (
    outcome.status === "completed" &&
    stopped === undefined &&
    nearFull &&
    lastStepReason === "tool-calls" &&
    outcome.steps < options.maxRounds
  ) {
    outcome.compact = true;
    return outcome;
  }
  if (outcome.status === "completed" && stopped !== undefined) {
    outcome.status = "failed";
    outcome.finishReason = "repeated-failure";
    outcome.error = stopped;
  }
  if (
    outcome.status === "completed" &&
    (lastStepReason === "tool-calls" || (lastStepReason === "length" && lastStepCalled)) &&
    outcome.steps >= options.maxRounds
  ) {
    outcome.status = "max-rounds";
    outcome.finishReason = "max-rounds";
  }
  // The last answer ended at a length limit, not by the model finishing it: it is incomplete.
  // (A step that made calls was answered and went on, unless a budget stopped the run above.)
  if (outcome.status === "completed" && lastStepReason === "length") {
    outcome.status = "failed";
    outcome.finishReason = "length";
    outcome.error = new ModelOutputLimitError({
      maxOutputTokens: options.maxOutputTokens,
      outputTokens: lastStepOutputTokens,
    });
  }
  return outcome;
}
