import type { CallPhase } from "../tools/call-phase.ts";
import type { Envelope } from "../tools/envelope.ts";

/** Tokens a run (or a step) used, as the provider reported them. */
export interface RunUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
}

/** How a run ended: `completed` (the model answered), or stopped by a budget, an abort, a failure. */
export type RunStatus = "completed" | "max-rounds" | "aborted" | "failed";

/**
 * What a run streams to hosts, in order. The same events are recorded (except the live-only
 * ones), so a replay re-emits them without calling the model or any tool (consecutive text
 * deltas come back joined into fewer, larger ones). The UI contract's schema
 * (src/shared/run-event-schema.ts) carries the same union: test/run-event-union.test.ts holds
 * the two equal, so a change here fails the typecheck until the schema has it too.
 */
export type RunEvent =
  | { type: "start"; sessionId: string; runId: string; agent: string; model: string; resumed: boolean }
  /** Something the user should know, e.g. the model cannot call tools so this is a plain chat. */
  | { type: "notice"; message: string }
  /**
   * The older part of the conversation was summarised to fit the model's context (`reason`: it
   * neared the context window, a request was refused as too long, or a person asked): the model
   * is sent `summary` in place of `messages` stored messages (which stay in the store). The
   * tokens are estimates of one request, instructions and tool definitions included; `usage` is
   * what the summary requests used, as the provider reported it (a run's `finish` counts it too).
   */
  | {
      type: "compaction";
      reason: "context-near-full" | "context-full" | "manual";
      messages: number;
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
      usage?: RunUsage;
    }
  | { type: "step-start"; step: number }
  /**
   * A piece of the model's text. `cutOff: true` says the step's text (or reasoning) ends here
   * before the model finished it — at the output limit, or the connection dropped, the model
   * failed or the run was stopped: live it comes as an empty text after the pieces; a replay
   * carries it on the joined text.
   */
  | { type: "text"; step: number; text: string; cutOff?: true }
  | { type: "reasoning"; step: number; text: string; cutOff?: true }
  | { type: "tool-call"; step: number; toolCallId: string; toolName: string; input: unknown }
  /** What the approval stage decided for a call (a person, a cached answer, a mode, or headless). */
  | {
      type: "approval";
      step: number;
      toolCallId: string;
      toolName: string;
      decision: "allow" | "deny";
      reason: string;
    }
  /**
   * A call waits — `queued` behind calls made before it (a write behind one still waiting for
   * its approval), `awaiting-approval` (its prompt, or an identical call's, waits for a person)
   * — or, having waited, runs (`running`). A call that runs at once has none. Live only.
   */
  | { type: "tool-phase"; step: number; toolCallId: string; toolName: string; phase: CallPhase }
  /** A `question` call this host cannot put to anyone: the model gets the refusal as a tool error. */
  | { type: "question-refused"; step: number; toolCallId: string; message: string }
  /**
   * The envelope the model sees for a call; `denied` when a stage of the policy refused it (a
   * rule, the watchdog, the capability check or a person), so views say "denied", as the audit does.
   */
  | {
      type: "tool-result";
      step: number;
      toolCallId: string;
      toolName: string;
      envelope: Envelope;
      denied?: true;
    }
  | { type: "step-finish"; step: number; finishReason: string; usage: RunUsage }
  /**
   * The model has been silent for a while: it has not started answering (`first-byte`) or it
   * paused mid-answer (`idle`). The step fails once the silence reaches `timeoutMs`. Or, kind
   * `model-busy`, the step waits for an embedded model another run is using: that wait counts
   * toward no timeout (`timeoutMs` is the first-output limit that applies once it has the model).
   * Live only.
   */
  | {
      type: "model-waiting";
      step: number;
      kind: "first-byte" | "idle" | "model-busy";
      elapsedMs: number;
      timeoutMs: number;
    }
  /** The model went on after a `model-waiting` (after `model-busy`: the step has the model now). Live only. */
  | { type: "model-resumed"; step: number; waitedMs: number }
  /**
   * Why the run failed, said for a person. `cause` "model-stalled": the model went silent past its
   * timeout; "connection-dropped": the model's connection
   * closed mid-answer, so the session can go on as it is (what it wrote so far is kept, marked as
   * cut off) once the model answers again.
   */
  | { type: "error"; message: string; cause?: "connection-dropped" | "model-stalled" }
  /**
   * `stoppedBecause`: why the run was stopped (status "aborted"), when the host that stopped it
   * said (see RunStopped): "the tab that started it was closed".
   */
  | {
      type: "finish";
      status: RunStatus;
      finishReason: string;
      steps: number;
      usage: RunUsage;
      stoppedBecause?: string;
    }
  /**
   * An event of a task's child run (`taskId` is the child's session id; `toolCallId` the parent's
   * `task` call that started it). Nested tasks nest these. Hosts get them live; they are recorded
   * in the child's session, not the parent's, so a replay of the parent does not repeat them.
   */
  | { type: "task"; taskId: string; toolCallId?: string; event: RunEvent };

type RunEventType = RunEvent["type"];

/**
 * Events that describe the moment (how long the model has been silent, what a call waits for):
 * hosts get them, the record does not.
 */
const LIVE_ONLY: ReadonlySet<RunEventType> = new Set(["model-waiting", "model-resumed", "tool-phase"]);

export function isLiveOnly(event: RunEvent): boolean {
  return LIVE_ONLY.has(event.type);
}
