import type { ProjectStatus, ToolInfo } from "../../shared/api-contract.ts";
import type { ExtensionsStatus } from "../../shared/extensions-schemas.ts";
import { parsePushFrame, type PushFrame } from "../../shared/push-events.ts";
import type { ApprovalMode, Engine, Envelope, Session } from "../engine/index.ts";
import { ProviderKeys } from "../secrets/provider-keys.ts";
import { ApprovalBroker } from "./approval-broker.ts";
import { createApprovalHandlers } from "./approval-handlers.ts";
import { ApiRouter, type ApiRouterOptions } from "./api-router.ts";
import { listAgents } from "./agent-list.ts";
import { createChatHandlers } from "./chat-handlers.ts";
import { chatHistory } from "./chat-history.ts";
import { ChatRuns } from "./chat-runs.ts";
import { createCheckpointHandlers } from "./checkpoint-handlers.ts";
import { projectStatus, type EngineHost, type EngineUser } from "./engine-host.ts";
import type { TabHolder } from "./live-tabs.ts";
import { createExtensionHandlers } from "./extension-handlers.ts";
import { listModels } from "./model-list.ts";
import { createProjectHandlers } from "./project-handlers.ts";
import { createSecretHandlers } from "./secret-handlers.ts";
import { createSessionHandlers } from "./session-handlers.ts";
import { forwardCheckpoints, forwardToolActivity } from "./tool-activity.ts";
import { createToolHandlers } from "./tool-handlers.ts";
import { createAuditHandlers } from "./audit-handlers.ts";
import { createModelHandlers } from "./model-handlers.ts";
import { createPermissionHandlers } from "./permission-handlers.ts";
import { createSandboxHandlers } from "./sandbox-handlers.ts";
import { UnsandboxedMcpBroker } from "./unsandboxed-mcp-broker.ts";

interface UiConnectionOptions {
  host: EngineHost;
  /** Deliver one push to this UI (IPC `webContents.send`, or a WebSocket frame). */
  send(frame: PushFrame): void;
  /**
   * The sessions' approval mode. Without one, the mode the person chose in settings
   * (`approvals.mode`, a trusted project's first), else "ask": never yolo unless someone said so.
   */
  mode?: ApprovalMode;
  /** The process's cloud provider keys (shared by its UIs); without it, this host keeps none. */
  providerKeys?: ProviderKeys;
  onHandlerError?: ApiRouterOptions["onHandlerError"];
  /** How long the model picker waits for each local server (default: the engine's 1500 ms). */
  modelProbeTimeoutMs?: number;
  /**
   * The tab id the page presented (validated by the transport, see tab-id.ts): the tab it was
   * before a reload. Without one, or when a live connection holds it, the UI is a new tab.
   */
  tabId?: string;
  /**
   * Whether this connection still reaches a live page, asked when another connection presents
   * its tab id (see LiveTabs). Default: yes (an Electron window is the only page of its id).
   */
  alive?: () => Promise<boolean>;
}

/** One engine's session as this UI uses it. */
interface Binding {
  engine: Engine;
  session: Session;
  /** Aborts this binding's running tool calls (and so their prompts) when the UI goes away. */
  controller: AbortController;
  /** Tool calls on this engine that have not ended (the host keeps the chat runs on it, see RunOwners). */
  running: Set<Promise<unknown>>;
  /** Stops forwarding its tool activity and checkpoints. */
  stopActivity(): void;
}

/**
 * One UI (an Electron window, a `lathe serve` WebSocket) and everything that is its own: a
 * session in "ask" mode whose approver is this UI's broker (its Tools view's calls), its chat runs
 * (their approvals and questions go to every UI showing the chat, see SessionPrompts), the router
 * its requests go through, and the pushes it receives (its prompts, its session's tool activity,
 * every chat run's events and prompts, project status). When the project is trusted it moves to
 * the new engine (runs going on finish on the old one); when it closes, its waiting prompts are
 * rejected, its calls aborted and its sessions closed, and its chat runs wait a few seconds for
 * its tab: the same tab connecting again (a reload, see LiveTabs) has them back, and those whose
 * tab does not come back stop (see RunOwners). Once the host has said which tab it is, it pushes
 * `tab.assigned` so the page presents that id next time.
 */
export class UiConnection implements EngineUser, TabHolder {
  readonly router: ApiRouter;
  private readonly options: UiConnectionOptions;
  private readonly broker: ApprovalBroker;
  private readonly unsandboxedMcp: UnsandboxedMcpBroker;
  private readonly detachUnsandboxedMcp: () => void;
  private readonly runs: ChatRuns;
  private readonly bindings = new Set<Binding>();
  /** The `tools.call` calls running now, each stoppable on its own (the Tools view's Stop). */
  private readonly calls = new Set<AbortController>();
  private current: Promise<Binding>;
  private readonly unregister: () => void;
  private readonly stopFollowingRuns: () => void;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** The tab id this UI goes by, once the host has decided (see LiveTabs). */
  readonly tab: Promise<string>;

  constructor(options: UiConnectionOptions) {
    this.options = options;
    this.tab = options.host.tabs.claim(this, options.tabId);
    void this.tab.then((tabId) => this.pushSafely({ event: "tab.assigned", payload: { tabId } }));
    this.broker = new ApprovalBroker((frame) => this.push(frame));
    this.unsandboxedMcp = new UnsandboxedMcpBroker((frame) => this.push(frame));
    this.detachUnsandboxedMcp = options.host.unsandboxedMcp.attach(this.unsandboxedMcp);
    this.runs = new ChatRuns({
      target: async () => ({ engine: (await this.current).engine }),
      prompts: options.host.chatPrompts,
      ...(options.mode !== undefined ? { mode: options.mode } : {}),
      busySessions: options.host.chatSessions,
      live: options.host.liveRuns,
      tasks: options.host.liveTasks,
      owners: options.host.runOwners,
      tab: this.tab,
    });
    // Every run of the host, whichever UI started it: this UI shows those of the session it has open.
    this.stopFollowingRuns = options.host.liveRuns.listen((frame) => this.pushSafely(frame));
    this.current = this.bind(options.host.current);
    // A failure shows on this UI's first request; do not leave it unhandled meanwhile.
    this.current.catch(() => undefined);
    this.unregister = options.host.register(this);
    this.router = new ApiRouter(
      {
        ...createToolHandlers({
          listTools: async (): Promise<ToolInfo[]> => (await this.current).engine.listTools(),
          call: (toolId, args) => this.call(toolId, args),
          stop: () => this.stopCalls(),
        }),
        ...createApprovalHandlers(this.broker, options.host.chatPrompts),
        ...createProjectHandlers(options.host),
        ...createExtensionHandlers(options.host),
        ...createChatHandlers({
          runs: this.runs,
          questions: options.host.chatPrompts,
          history: async (sessionId) => {
            const history = chatHistory(
              (await this.current).engine,
              sessionId,
              options.host.liveRuns.inSession(sessionId),
              options.host.liveTasks.inSession(sessionId),
              options.host.chatPrompts.pending(sessionId),
            );
            // This tab's own run (it started it, maybe before a reload) stays with it.
            return (await this.runs.owns(sessionId)) ? { ...history, runOwned: true } : history;
          },
          models: async () => listModels((await this.current).engine),
          agents: async () => listAgents((await this.current).engine),
        }),
        ...createSessionHandlers({
          engine: async () => (await this.current).engine,
          busy: options.host.chatSessions,
          waiting: (sessionId) => options.host.chatPrompts.waiting(sessionId),
          changed: (deleted) => options.host.sessionsChanged(deleted),
        }),
        ...createSecretHandlers(options.providerKeys ?? new ProviderKeys()),
        ...createCheckpointHandlers({
          engine: async () => (await this.current).engine,
          running: (sessionId) => options.host.chatSessions.has(sessionId),
        }),
        ...createAuditHandlers(async () => (await this.current).engine),
        ...createModelHandlers({
          engine: async () => (await this.current).engine,
          ...(options.modelProbeTimeoutMs !== undefined ? { timeoutMs: options.modelProbeTimeoutMs } : {}),
        }),
        ...createPermissionHandlers(options.host),
        ...createSandboxHandlers(async () => (await this.current).engine),
        "mcp.approveUnsandboxed": ({ id, approve }) => this.unsandboxedMcp.respond(id, approve),
      },
      options.onHandlerError ? { onHandlerError: options.onHandlerError } : {},
    );
  }

  /** Prompts of this UI's own calls (its Tools view) waiting, the one on screen included. */
  get pendingApprovals(): number {
    return this.broker.pendingCount;
  }

  /** Agent runs (and the background tasks they started) that are this UI's tab's and going on. */
  get activeRuns(): number {
    return this.runs.active;
  }

  alive(): Promise<boolean> {
    return this.closed ? Promise.resolve(false) : (this.options.alive?.() ?? Promise.resolve(true));
  }

  /** Whether a tool call this UI started is still running (the host knows of the chat runs). */
  busy(): boolean {
    return [...this.bindings].some((binding) => binding.running.size > 0);
  }

  extensionsChanged(status: ExtensionsStatus): void {
    this.pushSafely({ event: "extensions.changed", payload: status });
  }

  projectChanged(status: ProjectStatus): void {
    this.pushSafely({ event: "project.status", payload: status });
  }

  sessionsChanged(deleted?: string[]): void {
    this.pushSafely({ event: "sessions.changed", payload: deleted ? { deleted } : {} });
  }

  async switchTo(next: Engine): Promise<{ released: Promise<void> }> {
    if (this.closed) return { released: Promise.resolve() };
    const previous = this.current;
    const binding = this.bind(next);
    this.current = binding;
    await binding;
    this.pushSafely({ event: "project.status", payload: projectStatus(next) });
    return { released: previous.then((old) => this.retire(old, false)).catch(() => undefined) };
  }

  /** The UI went away: reject its prompts, abort its calls, close its sessions; its tab's chat runs wait for it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      // A connection another one displaced (its page had gone) leaves its tab's runs alone.
      void this.tab.then((tab) => this.options.host.tabs.release(this, tab));
      this.unregister();
      this.stopFollowingRuns();
      this.detachUnsandboxedMcp();
      this.broker.close();
      this.unsandboxedMcp.close();
      this.runs.close();
      await this.current.catch(() => undefined);
      await Promise.all([...this.bindings].map((binding) => this.retire(binding, true)));
    })();
    return this.closing;
  }

  private async call(toolId: string, args: unknown): Promise<Envelope> {
    const binding = await this.current;
    if (this.closed) {
      return {
        type: "error",
        error_text: `${toolId} was not run: the window closed.`,
        metadata: { duration_ms: 0 },
      };
    }
    const own = new AbortController();
    this.calls.add(own);
    const signal = AbortSignal.any([binding.controller.signal, own.signal]);
    const running = binding.session.call(toolId, args, { signal });
    this.track(binding, running);
    try {
      return await running;
    } finally {
      this.calls.delete(own);
    }
  }

  /** Stop every `tools.call` of this UI still running; each answers with its "aborted" envelope. */
  private stopCalls(): { stopped: number } {
    const stopped = this.calls.size;
    for (const call of this.calls) call.abort(new Error("stopped by the person"));
    this.calls.clear();
    return { stopped };
  }

  /** The binding's engine is not retired until `work` has ended. */
  private track(binding: Binding, work: Promise<unknown>): void {
    binding.running.add(work);
    void work.then(
      () => binding.running.delete(work),
      () => binding.running.delete(work),
    );
  }

  private async bind(engine: Engine): Promise<Binding> {
    const session = await engine.openSession({
      ...(this.options.mode !== undefined ? { mode: this.options.mode } : {}),
      approver: this.broker.approver,
    });
    const binding: Binding = {
      engine,
      session,
      controller: new AbortController(),
      running: new Set(),
      stopActivity: forwardToolActivity(engine, session.id, (frame) => this.pushSafely(frame)),
    };
    const stopCheckpoints = forwardCheckpoints(engine, (frame) => this.pushSafely(frame));
    const stopTools = binding.stopActivity;
    binding.stopActivity = () => {
      stopTools();
      stopCheckpoints();
    };
    this.bindings.add(binding);
    if (this.closed) await this.retire(binding, true);
    return binding;
  }

  /** Stop using a binding: let its running calls end (or abort them), then close its session. */
  private async retire(binding: Binding, abort: boolean): Promise<void> {
    if (abort) binding.controller.abort(new Error("the window closed"));
    await Promise.allSettled([...binding.running]);
    binding.stopActivity();
    if (!this.bindings.delete(binding)) return;
    try {
      await binding.session.close();
    } catch (error) {
      console.error("lathe: closing a window's session failed:", error);
    }
  }

  /** Validate a push against the contract and send it; throws when it cannot be sent. */
  private push(frame: PushFrame): void {
    if (this.closed) return;
    const checked = parsePushFrame(frame);
    if (!checked.ok) throw new Error(`refusing to send a push that breaks the contract: ${checked.error}`);
    this.options.send(checked.frame);
  }

  /** For pushes nothing waits on (activity, status): a failure is reported, never thrown. */
  private pushSafely(frame: PushFrame): void {
    try {
      this.push(frame);
    } catch (error) {
      console.error(`lathe: could not send the ${frame.event} push:`, error);
    }
  }
}
