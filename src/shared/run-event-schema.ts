// What an agent run streams to the UI, in order: the engine's run events as the contract sees them.
// Event objects are parsed with `z.object` (unknown keys are dropped, not refused), so a field the
// engine adds later never costs the UI a whole event; the event types themselves are fixed here.
import { z } from "zod";
import { CallPhaseSchema } from "./call-phase-schema.ts";
import { EnvelopeSchema } from "./envelope-schema.ts";

const RunUsageSchema = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

/** How a run ended: the model answered, a budget stopped it, it was stopped, or it failed. */
const RunStatusSchema = z.enum(["completed", "max-rounds", "aborted", "failed"]);

export type RunUsage = z.output<typeof RunUsageSchema>;
export type RunStatus = z.output<typeof RunStatusSchema>;

const step = z.number().int().nonnegative();

/**
 * One event of a run; `task` wraps an event of a child run (a subagent), nested to any depth.
 * The type is the schema's: test/run-event-union.test.ts holds it equal to the engine's RunEvent.
 */
export const RunEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("start"),
    sessionId: z.string(),
    runId: z.string(),
    agent: z.string(),
    model: z.string(),
    resumed: z.boolean(),
  }),
  z.object({ type: z.literal("notice"), message: z.string() }),
  /** The older part of the conversation was summarised: the model is sent the summary instead. */
  z.object({
    type: z.literal("compaction"),
    reason: z.enum(["context-near-full", "context-full", "manual"]),
    messages: z.number().int().nonnegative(),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    summary: z.string(),
    /** The tokens the summary requests used, as the provider reported them (when it did). */
    usage: RunUsageSchema.optional(),
  }),
  z.object({ type: z.literal("step-start"), step }),
  /** `cutOff: true`: the step's text ends here, cut off before the model finished it. */
  z.object({ type: z.literal("text"), step, text: z.string(), cutOff: z.literal(true).optional() }),
  z.object({ type: z.literal("reasoning"), step, text: z.string(), cutOff: z.literal(true).optional() }),
  z.object({
    type: z.literal("tool-call"),
    step,
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  z.object({
    type: z.literal("approval"),
    step,
    toolCallId: z.string(),
    toolName: z.string(),
    decision: z.enum(["allow", "deny"]),
    reason: z.string(),
  }),
  /** A call waits (queued, awaiting approval) or, having waited, runs; live only. */
  z.object({
    type: z.literal("tool-phase"),
    step,
    toolCallId: z.string(),
    toolName: z.string(),
    phase: CallPhaseSchema,
  }),
  z.object({ type: z.literal("question-refused"), step, toolCallId: z.string(), message: z.string() }),
  z.object({
    type: z.literal("tool-result"),
    step,
    toolCallId: z.string(),
    toolName: z.string(),
    envelope: EnvelopeSchema,
    denied: z.literal(true).optional(),
  }),
  z.object({ type: z.literal("step-finish"), step, finishReason: z.string(), usage: RunUsageSchema }),
  /** The model has been silent this long (it has not started, or paused mid-answer); live only. */
  z.object({
    type: z.literal("model-waiting"),
    step,
    kind: z.enum(["first-byte", "idle", "model-busy"]),
    elapsedMs: z.number().nonnegative(),
    timeoutMs: z.number().nonnegative(),
  }),
  z.object({ type: z.literal("model-resumed"), step, waitedMs: z.number().nonnegative() }),
  /**
   * `cause` "connection-dropped": the model's connection closed mid-answer; "model-stalled": it went
   * silent past its timeout. Either way the session can go on as it is.
   */
  z.object({
    type: z.literal("error"),
    message: z.string(),
    cause: z.enum(["connection-dropped", "model-stalled"]).optional(),
  }),
  z.object({
    type: z.literal("finish"),
    status: RunStatusSchema,
    finishReason: z.string(),
    steps: z.number().int().nonnegative(),
    usage: RunUsageSchema,
    /** Why the run was stopped ("aborted"), when the host that stopped it said. */
    stoppedBecause: z.string().optional(),
  }),
  /** `taskId` is the child's session id; `toolCallId` the parent's `task` call that started it. */
  z.object({
    type: z.literal("task"),
    taskId: z.string(),
    toolCallId: z.string().optional(),
    get event() {
      return RunEventSchema;
    },
  }),
]);

export type RunEvent = z.output<typeof RunEventSchema>;

/**
 * The `run.event` push: one event of a chat run, sent to every UI of the host (each shows the
 * session it has open), whichever UI started the run.
 */
export const RunEventPushSchema = z.strictObject({
  sessionId: z.string(),
  runId: z.string(),
  /** The event's place in its run (0 first): a redrawn session already holds those below its `runningNextIndex`. */
  index: z.number().int().nonnegative(),
  /** The person's prompt, on the run's start event (a UI that did not send it shows it too). */
  prompt: z.string().optional(),
  event: RunEventSchema,
});
