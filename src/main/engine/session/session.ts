import type { FsCapability } from "../capability/fs-capability.ts";
import type { CallCheckpoints } from "../checkpoints/session-checkpoints.ts";
import type { ApprovalMode } from "../config/lathe-settings.ts";
import type { Ruleset } from "../policy/ruleset.ts";
import type { SessionPolicy } from "../policy/session-policy.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { AnyTool } from "../tools/contract.ts";
import { callTool, type CallContext, type CallObserver } from "../tools/call-tool.ts";
import type { Envelope } from "../tools/envelope.ts";
import { Scheduler } from "../tools/scheduler.ts";
import type { CallOutcome, CallRequest } from "../tools/tool-call.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { FileClaimer } from "../tools/file-claimer.ts";
import type { SessionState } from "./session-state.ts";

/** What a host may add to a call: a signal to stop it, and its own id for it. */
type CallOptions = Pick<CallRequest, "signal" | "correlationId">;

interface SessionWiring {
  registry: ToolRegistry;
  root: string;
  state: SessionState;
  persistent: boolean;
  mode: ApprovalMode;
  policy: SessionPolicy;
  /** The OS sandbox for the processes the session's tools start. */
  sandbox: ProcessSandbox;
  observer: CallObserver;
  capabilityFor(tool: AnyTool, state: SessionState): FsCapability;
  onInternalError(toolId: string, sessionId: string, error: unknown): void;
  /** Checkpoints of the files its calls change (persistent sessions); absent: none are kept. */
  checkpoints?: CallCheckpoints;
  /** Who is changing which file, across sessions and processes. */
  fileClaims: FileClaimer;
  /**
   * Why the session's calls may no longer run (deleted or closed by another process while open
   * here), or undefined; asked as each call is about to run. Absent: it cannot be lost.
   */
  lost?(): string | undefined;
  /** Called once when the session ends for good (`close`), not when it is only released. */
  onClose(session: Session): Promise<void>;
  onRelease(session: Session): void;
}

/**
 * One conversation's worth of tool calls: its own scheduler (so reads run together and writes
 * in order), its read-state, approvals and sidecar directory, and its policy.
 */
export class Session {
  readonly state: SessionState;
  readonly persistent: boolean;
  readonly mode: ApprovalMode;
  private readonly ctx: CallContext;
  private readonly wiring: SessionWiring;
  private ended = false;
  private lostReason: string | undefined;

  constructor(wiring: SessionWiring) {
    this.state = wiring.state;
    this.persistent = wiring.persistent;
    this.mode = wiring.mode;
    this.wiring = wiring;
    const capabilities = new WeakMap<AnyTool, FsCapability>();
    const state = wiring.state;
    this.ctx = {
      registry: wiring.registry,
      root: wiring.root,
      sandbox: wiring.sandbox,
      session: state,
      scheduler: new Scheduler(),
      capabilityFor: (tool) => {
        let cap = capabilities.get(tool);
        if (!cap) {
          cap = wiring.capabilityFor(tool, state);
          capabilities.set(tool, cap);
        }
        return cap;
      },
      decide: wiring.policy.decide,
      authorize: wiring.policy.authorize,
      authorizePlan: wiring.policy.authorizePlan,
      ...(wiring.policy.readDenied ? { readDenied: wiring.policy.readDenied } : {}),
      ...(wiring.policy.readAsks ? { readAsks: wiring.policy.readAsks } : {}),
      observer: wiring.observer,
      onInternalError: (toolId, error) => wiring.onInternalError(toolId, state.id, error),
      ...(wiring.checkpoints ? { checkpoints: wiring.checkpoints } : {}),
      fileClaims: wiring.fileClaims,
      ...(wiring.lost ? { sessionLost: () => this.checkLost() } : {}),
    };
  }

  /**
   * Why this session's calls can no longer run: it was deleted or closed by another process while
   * open here. Once lost it stays lost (a batch stops issuing calls on it).
   */
  get lost(): string | undefined {
    return this.lostReason;
  }

  private checkLost(): string | undefined {
    this.lostReason ??= this.wiring.lost?.();
    return this.lostReason;
  }

  get id(): string {
    return this.state.id;
  }

  /** The permission rules its calls are judged by. */
  get ruleset(): Ruleset {
    return this.wiring.policy.ruleset;
  }

  /**
   * Run one tool call through the whole pipeline. Always resolves, never rejects: to the
   * envelope, the engine's id of the call and what each stage of the policy decided.
   */
  invoke(request: CallRequest): Promise<CallOutcome> {
    if (this.ended || this.lostReason !== undefined) {
      return Promise.resolve({
        envelope: {
          type: "error",
          error_text: this.lostReason ?? `Session ${this.id} is closed; open a new session to call tools.`,
          metadata: { duration_ms: 0 },
        },
        callId: "",
        decisions: [],
      });
    }
    return callTool(this.ctx, request);
  }

  /** Run one tool call through the whole pipeline; always resolves to its envelope. */
  async call(toolId: string, args: unknown, options: CallOptions = {}): Promise<Envelope> {
    return (await this.invoke({ toolId, args, ...options })).envelope;
  }

  /** End the session: its sidecar files are removed and a persistent one is marked closed. */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.wiring.onClose(this);
  }

  /** Let go of the session without ending it (a persistent session stays resumable). */
  release(): void {
    if (this.ended) return;
    this.ended = true;
    this.wiring.onRelease(this);
  }
}
