import type { FsCapability } from "../capability/fs-capability.ts";
import type { CallCheckpoints } from "../checkpoints/session-checkpoints.ts";
import type { ApprovalMode } from "../policy/lathe-settings.ts";
import type { SessionPolicy } from "../policy/session-policy.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { AnyTool } from "../tools/contract.ts";
import { callTool, type CallContext, type CallObserver, type CallOptions } from "../tools/call-tool.ts";
import type { Envelope } from "../tools/envelope.ts";
import { Scheduler } from "../tools/scheduler.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { SessionState } from "./session-state.ts";

export interface SessionWiring {
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
      observer: wiring.observer,
      onInternalError: (toolId, error) => wiring.onInternalError(toolId, state.id, error),
      ...(wiring.checkpoints ? { checkpoints: wiring.checkpoints } : {}),
    };
  }

  get id(): string {
    return this.state.id;
  }

  /** Run one tool call through the whole pipeline; always resolves to an envelope. */
  call(toolId: string, args: unknown, options?: CallOptions): Promise<Envelope> {
    if (this.ended) {
      return Promise.resolve({
        type: "error",
        error_text: `Session ${this.id} is closed; open a new session to call tools.`,
        metadata: { duration_ms: 0 },
      });
    }
    return callTool(this.ctx, toolId, args, options);
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
