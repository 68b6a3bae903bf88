import type { FsCapability } from "../capability/fs-capability.ts";
import type { StageRecord } from "./call-decision.ts";
import type { CallPhaseListener } from "./call-phase.ts";
import type { Envelope } from "./envelope.ts";
import type { RegisteredTool } from "./tool-registry.ts";

/** One tool call as its caller asks for it. */
export interface CallRequest {
  toolId: string;
  /** The arguments: an object, or its JSON text as a model sent it. */
  args: unknown;
  signal?: AbortSignal;
  /**
   * The caller's own id for the call (an agent's: the model's tool call id). It ties the call's
   * checkpoint and a task it starts to the conversation; the engine's id is `callId`.
   */
  correlationId?: string;
  /** Told when the call waits (queued, awaiting approval) and when it runs after waiting. */
  onPhase?: CallPhaseListener;
}

/**
 * One call on its way through the pipeline once its tool is found and its arguments are valid:
 * the policy decides it, the checkpoint is opened for it and `execute` runs it, each from this
 * one record.
 */
export interface ToolCall {
  /** The engine's id of the call: events, the audit trail, `runtime.callId`. */
  readonly callId: string;
  /** The caller's id for it, when it gave one (see CallRequest). */
  readonly correlationId: string | undefined;
  readonly entry: RegisteredTool;
  /** The validated arguments. */
  readonly args: unknown;
  /** The tool's file capability in this session. */
  readonly fs: FsCapability;
  /** Aborts when the caller stops the call. */
  readonly signal: AbortSignal | undefined;
  /** Where the call stands now (see CallPhase): the policy says when it waits for an approval. */
  readonly phase?: CallPhaseListener;
}

/** How a call ended, for a caller that needs more than the envelope. */
export interface CallOutcome {
  envelope: Envelope;
  /** The engine's id of the call (events, the audit trail); empty when none was made (a closed session). */
  callId: string;
  /** What each stage of the policy decided, in order (empty when the call never reached it). */
  decisions: readonly StageRecord[];
}
