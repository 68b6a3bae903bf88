import { randomBytes } from "node:crypto";
import { realpath, rm, stat } from "node:fs/promises";
import path from "node:path";
import { callRecorder } from "./audit/call-recorder.ts";
import { builtinTools } from "./builtin/builtin-tools.ts";
import { canonicalize } from "./capability/canonical-path.ts";
import { DEFAULT_CHECKPOINT_LIMITS, type CheckpointLimits } from "./checkpoints/checkpoint-limits.ts";
import { Checkpoints } from "./checkpoints/checkpoints.ts";
import { FsCapability } from "./capability/fs-capability.ts";
import { PathScope, type PathVariables } from "./capability/path-scope.ts";
import { resolveLatheHome } from "./config/lathe-home.ts";
import { EngineEvents } from "./engine-events.ts";
import { EngineExtensions } from "./extensions/engine-extensions.ts";
import { configuredMcpServers } from "./mcp/mcp-approval.ts";
import type { McpEvent } from "./mcp/mcp-event.ts";
import type { UnsandboxedServerApprover } from "./mcp/mcp-manager.ts";
import { SessionError } from "./errors/session-error.ts";
import { AuditUnwrittenError } from "./errors/audit-unwritten-error.ts";
import { sessionIdProblem } from "./session/session-id.ts";
import { otherFolderMessage, unknownSessionMessage } from "./session/unknown-session.ts";
import { errorMessage } from "./errors/error-message.ts";
import { ApprovalCache, type ApprovalPersistence } from "./policy/approval-cache.ts";
import type { Approver } from "./policy/approval-request.ts";
import type { ApprovalMode } from "./config/lathe-settings.ts";
import type { PermissionRule, ScopedRule } from "./policy/permission-rule.ts";
import { loadPolicyConfig, type PolicyConfig } from "./config/policy-config.ts";
import { ProtectedPaths } from "./policy/protected-paths.ts";
import { Ruleset } from "./policy/ruleset.ts";
import { sessionPolicy } from "./policy/session-policy.ts";
import { sweepTempFoldersAtStart } from "./temp/startup-temp-sweep.ts";
import { EngineSandbox } from "./sandbox/engine-sandbox.ts";
import { HiddenPathSet } from "./sandbox/hidden-path-set.ts";
import { hiddenWorkspaceNotice } from "./sandbox/hidden-workspace-notice.ts";
import type { SandboxProbe, SandboxStatus } from "./sandbox/sandbox-availability.ts";
import { sandboxAvailabilityCache } from "./sandbox/sandbox-availability-cache.ts";
import type { Asker } from "./tools/question-request.ts";
import { Session } from "./session/session.ts";
import { SkillCatalog } from "./skills/skill-catalog.ts";
import { SessionState } from "./session/session-state.ts";
import { TaskBoard } from "./session/task-board.ts";
import {
  approvalsUnder,
  projectApprovals,
  revokeApprovals,
  sessionApprovals,
  type StoredApproval,
} from "./store/approval-store.ts";
import { AuditLog } from "./store/audit-log.ts";
import { ConversationStore } from "./store/conversation-store.ts";
import { openDatabase, writeTransaction, type Db } from "./store/database.ts";
import { databaseBytes, reclaimFreePages } from "./store/reclaimed-space.ts";
import { indexBacklog, unindexedBelow } from "./store/text-index-backlog.ts";
import { RunLeases, type LeaseHolder, type RunLease } from "./store/run-leases.ts";
import { FileClaims } from "./store/file-claims.ts";
import { SessionUsers, type SessionUse, type SessionUser } from "./store/session-users.ts";
import { SessionCatalog } from "./store/session-catalog.ts";
import { SessionStore } from "./store/session-store.ts";
import { TodoStore } from "./store/todo-store.ts";
import type { AnyTool, ToolInfo } from "./tools/contract.ts";
import { planDeferral, type DeferralOptions } from "./tools/deferral.ts";
import { ToolExposure, type ToolExposureOptions } from "./tools/tool-exposure.ts";
import { ToolRegistry, toolInfo } from "./tools/tool-registry.ts";

/** What `Engine.pruneAudit` did: rows deleted, and the database's bytes on disk before and after. */
export interface AuditPruned {
  removed: number;
  bytesBefore: number;
  bytesAfter: number;
}

export interface EngineOptions {
  /** The folder the agent works in. */
  root: string;
  /** Lathe's per-user data directory; defaults to `$LATHE_HOME` or `~/.lathe`. */
  latheHome?: string;
  /** The agent manifest's permission rules (a manifest deny can never be lifted). */
  manifestRules?: readonly PermissionRule[];
  /** The agent's name, for hooks and messages. */
  agent?: string;
  /**
   * Load plugin tools and start MCP servers (default true). Plugins register at once; MCP tools
   * join the registry when the host calls `applyPendingChanges()` (or `settleExtensions()`).
   */
  extensions?: boolean;
  /**
   * Watch the plugin folders for changes, applied between turns (default true). A one-shot host
   * that runs no turn (`lathe call`, `lathe tools`) passes false: arming the watches costs more
   * than the command.
   */
  watchExtensions?: boolean;
  /** The bundled plugins folder (default: `plugins/` shipped with Lathe). */
  bundledPluginsDir?: string;
  /** Told before an MCP server first starts (with its exact command line) and of its state changes. */
  onMcpEvent?: (event: McpEvent) => void;
  /**
   * Told, just before it starts, when opening the store brings its schema up to date in a way that
   * takes seconds (once after an upgrade, on a large audit trail): what it does, for the person.
   */
  onLongMigration?: (notice: string) => void;
  /**
   * Checkpoints of the files persistent sessions' calls change (default: on, with the default
   * limits). `false` records none (what was recorded can still be listed and restored).
   */
  checkpoints?: false | Partial<CheckpointLimits>;
  /**
   * Asked before a stdio MCP server starts without the OS sandbox (when it is not active).
   * Without one (headless) such a server is not started.
   */
  approveUnsandboxedMcp?: UnsandboxedServerApprover;
  /** The machine check behind the OS sandbox's availability (tests simulate a machine without it). */
  sandboxProbe?: SandboxProbe;
}

interface OpenSessionOptions {
  /** A persistent session's id; without one the session is ephemeral. */
  id?: string;
  /** Approval mode for gated tools; defaults to the settings' mode, else "ask". */
  mode?: ApprovalMode;
  /** Who answers approval prompts. Without one the host is headless: `ask` becomes `deny`. */
  approver?: Approver;
  /** Who answers the question tool. Without one the host is headless: questions fail with a fixed message. */
  asker?: Asker;
  /**
   * Manifest-scope rules for this session only, on top of the engine's (a task's agent's own
   * rules and the denies it inherits from the agents that started it). Like every manifest deny,
   * theirs can never be lifted by settings, approvals or a mode. `source` names them in messages.
   */
  manifestRules?: readonly (PermissionRule & { source?: string })[];
  /**
   * For a task's session: the rules of the run that started it. Every verdict is the stricter of
   * the session's own and these, so a task never does without asking what that run could not.
   */
  ceiling?: Ruleset;
  /** The agent the session works for (hooks are told); defaults to the engine's. */
  agent?: string;
}

function newSessionId(): string {
  return `s-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

/**
 * The engine for one workspace root: the tool registry, the policy read from settings and
 * trust, sessions, and the store (sessions, approvals, audit) behind them. Hosts (the CLI, the
 * Electron main process, `lathe serve`) use only this surface.
 */
export class Engine {
  readonly root: string;
  readonly latheHome: string;
  readonly registry = new ToolRegistry();
  readonly events = new EngineEvents();
  readonly policy: PolicyConfig;
  readonly agent: string;
  /** Each session's todo list (the `todo` tool); hosts read it with `todos.get(sessionId)`. */
  readonly todos: TodoStore;
  /** The tasks (subagents) started on this engine in this process, running or finished. */
  readonly tasks = new TaskBoard((sessionId) => this.events.emit("TasksChanged", { sessionId }));
  /** Skills from `$LATHE_HOME/skills` and the trusted project's `.lathe/skills`. */
  readonly skills: SkillCatalog;
  /** Checkpoints of persistent sessions: list, preview, restore, rewind (see checkpoints/checkpoints.ts). */
  readonly checkpoints: Checkpoints;
  private readonly recordCheckpoints: boolean;
  /** The OS sandbox around every process the engine starts (bash, plugin commands, MCP servers). */
  readonly sandbox: EngineSandbox;
  private readonly ruleset: Ruleset;
  private extensionsHost: EngineExtensions | undefined;
  private db: Db | undefined;
  private sessionStore: SessionStore | undefined;
  private auditLog: AuditLog | undefined;
  private conversationStore: ConversationStore | undefined;
  private catalog: SessionCatalog | undefined;
  private leases: RunLeases | undefined;
  private claims: FileClaims | undefined;
  private users: SessionUsers | undefined;
  private readonly open = new Set<Session>();
  /** What this engine's open persistent sessions hold in session_users (ended at release or close). */
  private readonly uses = new Map<Session, SessionUse>();
  /** Temp folders of released sessions being removed: `close` waits for them before the host exits. */
  private readonly removals = new Set<Promise<void>>();
  /** The sweep of temp folders that killed runs left behind (once per process): `close` waits for it. */
  private tempSweep: Promise<void> = Promise.resolve();
  /** Indexing the messages an older Lathe recorded for search, in the background: `close` stops it. */
  private textBacklog: { stop: AbortController; done: Promise<void> } | undefined;
  /** Told when opening the store starts a long migration (EngineOptions.onLongMigration). */
  private onLongMigration: ((notice: string) => void) | undefined;

  private constructor(
    root: string,
    latheHome: string,
    policy: PolicyConfig,
    agent: string,
    checkpoints: false | Partial<CheckpointLimits>,
    sandbox: EngineSandbox,
  ) {
    this.root = root;
    this.latheHome = latheHome;
    this.policy = policy;
    this.agent = agent;
    this.sandbox = sandbox;
    this.ruleset = new Ruleset(policy.rules);
    this.todos = new TodoStore({
      database: () => this.database(),
      onReplaced: (sessionId, todos) => this.events.emit("TodosChanged", { sessionId, todos }),
    });
    this.skills = new SkillCatalog({ root, latheHome, projectTrusted: policy.projectTrusted });
    this.recordCheckpoints = checkpoints !== false;
    this.checkpoints = new Checkpoints({
      root,
      latheHome,
      database: () => this.database(),
      conversations: () => this.conversations(),
      limits: { ...DEFAULT_CHECKPOINT_LIMITS, ...(checkpoints === false ? {} : checkpoints) },
      events: this.events,
      inUse: (id) => this.inUse(id),
      forgetReads: (id) => this.store().forgetReads(id),
      hidden: () => this.hiddenPaths([]),
      fileClaims: () => this.fileClaims(),
    });
  }

  /**
   * Create an engine for a folder. Throws SessionError when the folder does not exist and
   * ConfigError when a settings or trust file is malformed (a broken policy never fails open).
   */
  static async create(options: EngineOptions): Promise<Engine> {
    const requested = path.resolve(options.root);
    let root: string;
    try {
      root = await realpath(requested);
    } catch {
      throw new SessionError(`The folder ${requested} does not exist. Pass an existing folder as the root.`);
    }
    if (!(await stat(root)).isDirectory()) {
      throw new SessionError(`${requested} is not a folder. Pass a folder as the root.`);
    }
    // Canonical, like the root: path scopes ({user-data}, {session}) compare canonical paths.
    const latheHome = await canonicalize(path.resolve(options.latheHome ?? resolveLatheHome()));
    const policy = loadPolicyConfig({
      root,
      latheHome,
      ...(options.manifestRules ? { manifestRules: options.manifestRules } : {}),
    });
    const sandbox = await EngineSandbox.create({
      root,
      settings: policy.sandbox,
      // Every configured MCP server's files, trusted or not: trusting the project later runs them.
      protectedPaths: new ProtectedPaths({ root, latheHome, servers: configuredMcpServers(root, latheHome) }),
      ...(options.sandboxProbe ? { probe: options.sandboxProbe } : {}),
      cache: sandboxAvailabilityCache(latheHome),
      hiddenEnv: policy.keyVariables,
    });
    const engine = new Engine(
      root,
      latheHome,
      policy,
      options.agent ?? "default",
      options.checkpoints ?? {},
      sandbox,
    );
    engine.onLongMigration = options.onLongMigration;
    const deps = {
      web: policy.web,
      settingsFile: policy.userSettingsFile,
      skills: engine.skills,
    };
    for (const tool of builtinTools(deps))
      engine.registry.register(tool, { layer: "builtin", kind: "builtin" });
    if (options.extensions !== false) {
      engine.extensionsHost = await EngineExtensions.start({
        registry: engine.registry,
        root,
        latheHome,
        policy,
        sandbox,
        ...(options.watchExtensions === false ? { watch: false } : {}),
        ...(options.bundledPluginsDir ? { bundledDir: options.bundledPluginsDir } : {}),
        ...(options.onMcpEvent ? { onMcpEvent: options.onMcpEvent } : {}),
        onPluginLog: (entry) => engine.events.emit("PluginLog", entry),
        ...(options.approveUnsandboxedMcp ? { approveUnsandboxedMcp: options.approveUnsandboxedMcp } : {}),
      });
    }
    // Off the hot path: begun now, waited for only at close. Its removals go to a log file.
    engine.tempSweep = sweepTempFoldersAtStart(latheHome).catch((error: unknown) => {
      engine.events.emit("internal-error", { toolId: "temp-sweep", sessionId: "-", error });
    });
    return engine;
  }

  /** Plugins and MCP servers, when the engine loads them. */
  get extensions(): EngineExtensions | undefined {
    return this.extensionsHost;
  }

  /** Whether plugin folder changes or MCP tool lists wait for `applyPendingChanges()`. */
  hasPendingChanges(): boolean {
    return this.extensionsHost?.hasPendingChanges() ?? false;
  }

  /** Between turns: apply plugin folder changes and MCP connects, reconnects and list changes. */
  async applyPendingChanges(): Promise<void> {
    await this.extensionsHost?.applyPendingChanges();
  }

  /** For one-shot hosts (`lathe call`, `lathe tools`): wait for MCP servers to connect, then apply. */
  async settleExtensions(timeoutMs?: number): Promise<void> {
    await this.extensionsHost?.settle(timeoutMs);
  }

  /**
   * Things the user should be told once: project settings ignored until trusted, skills skipped
   * (broken, or in an untrusted project) and why, that the OS sandbox is not active (why, what
   * that means, the fix), and that the folder itself is hidden from every tool (see
   * hiddenWorkspaceNotice).
   */
  get notices(): readonly string[] {
    return [
      ...this.policy.notices,
      // A skill that cannot be loaded is left out of the model's list: its author is told why.
      ...this.skills.notices(),
      ...this.skills.problems().map((p) => `A skill was skipped: ${p.message}`),
      ...[this.sandbox.notice, hiddenWorkspaceNotice(this.root, this.hiddenPaths([]))].filter(
        (n): n is string => n !== undefined,
      ),
    ];
  }

  /** Whether the OS sandbox is active, and if not why and the fix (the app shows it). */
  get sandboxStatus(): SandboxStatus {
    return this.sandbox.status;
  }

  /**
   * Every bound tool with its origin and whether the model would start with its name only, for a
   * model with `contextTokens` of context (default: tools/deferral.ts DEFAULT_CONTEXT_TOKENS).
   */
  listTools(options: DeferralOptions = {}): ToolInfo[] {
    const entries = this.registry.all();
    const plan = planDeferral(entries, options);
    return entries.map((entry) => toolInfo(entry, plan));
  }

  /**
   * What a session's model is shown of the tools: full definitions, deferred names, and what
   * tool_search has loaded. One per session; `options` (the model's context size, the agent's
   * visibility) update it, and the discoveries stay.
   */
  toolExposure(session: Session, options?: ToolExposureOptions): ToolExposure {
    const exposure = session.state.exposure;
    if (options) exposure.configure(options);
    return exposure;
  }

  private database(): Db {
    if (this.db === undefined) {
      const db = openDatabase(
        path.join(this.latheHome, "lathe.db"),
        this.onLongMigration ? { onLongMigration: this.onLongMigration } : {},
      );
      this.db = db;
      const stop = new AbortController();
      const done = indexBacklog(db, stop.signal).catch((error: unknown) => {
        // Left for the next process to go on with; a search still finds those messages (by LIKE).
        this.events.emit("internal-error", { toolId: "text-index", sessionId: "-", error });
      });
      this.textBacklog = { stop, done };
    }
    return this.db;
  }

  private store(): SessionStore {
    this.sessionStore ??= new SessionStore(this.database());
    return this.sessionStore;
  }

  /** The audit trail (opened on first use). */
  audit(): AuditLog {
    this.auditLog ??= new AuditLog(() => this.database(), {
      onFailure: (error) => this.events.emit("AuditFailed", { error }),
    });
    return this.auditLog;
  }

  /**
   * `lathe audit prune`: delete the audit rows of calls that started before `before` (of
   * `root`'s calls when given, else every folder's), then give the space they took back to the
   * disk. Says how many rows went and how large the database was before and after.
   * `onReclaiming` hears, with the database's size, just before the file is rewritten for that.
   */
  pruneAudit(
    options: { before: number; root?: string },
    onReclaiming?: (databaseBytes: number) => void,
  ): AuditPruned {
    const db = this.database();
    const bytesBefore = databaseBytes(db.name);
    const removed = this.audit().prune(options);
    reclaimFreePages(db, () => onReclaiming?.(bytesBefore));
    return { removed, bytesBefore, bytesAfter: databaseBytes(db.name) };
  }

  /** Conversations: sessions' messages, run events and child tasks (opened on first use). */
  conversations(): ConversationStore {
    this.conversationStore ??= new ConversationStore(this.database());
    return this.conversationStore;
  }

  /**
   * How many recorded messages an older Lathe left to index for search (0 when none): a search
   * finds them meanwhile, more slowly (store/text-index-backlog.ts).
   */
  searchBacklog(): number {
    const below = unindexedBelow(this.database());
    if (below === undefined) return 0;
    return this.database().prepare("SELECT COUNT(*) FROM messages WHERE id < ?").pluck().get(below) as number;
  }

  /** Resolves once every recorded message is indexed for search (or the engine is closing). */
  async searchIndexed(): Promise<void> {
    this.database();
    await this.textBacklog?.done;
  }

  /** The recorded conversations as a session list: list, search, rename (opened on first use). */
  sessionCatalog(): SessionCatalog {
    this.catalog ??= new SessionCatalog(this.database());
    return this.catalog;
  }

  /**
   * Delete a recorded conversation and the task sessions it started for good: their messages,
   * checkpoints, todos, approvals and files in `$LATHE_HOME/sessions` (the audit trail keeps its
   * rows); then file contents no checkpoint needs any more are removed. Refused while one of them
   * is open in this engine (a run is using it). Returns the ids deleted; throws SessionError when
   * there is no such session.
   */
  async deleteSession(id: string): Promise<string[]> {
    this.requireOwnSession(id, "delete it");
    const catalog = this.sessionCatalog();
    // Checked in the transaction that deletes: a process opening the session takes its use in
    // the transaction that finds it, so it either sees it deleted or is seen here.
    const deleted = writeTransaction(this.database(), () => {
      for (const member of catalog.family(id)) this.refuseWhileInUse(member, "delete the session");
      return catalog.delete(id);
    })();
    if (deleted.length === 0) throw new SessionError(`There is no session "${id}" to delete.`);
    for (const gone of deleted) {
      this.todos.drop(gone);
      await rm(this.sessionDir(gone), { recursive: true, force: true });
    }
    await this.checkpoints.collectGarbage();
    return deleted;
  }

  /**
   * The persistent session `id` of this folder, open or closed. A session belongs to the folder
   * it was opened for: closing, deleting or renaming it from another folder (a stray `--root`,
   * the wrong current directory) is refused, as using it is. Throws SessionError saying which
   * folder has it, or that none of this folder's sessions has that id (and which ids start with
   * it) and how to list them; `then` ("close it") completes "Pass --root … to".
   */
  requireOwnSession(id: string, then: string): { createdAt: number; closedAt: number | null } {
    const found = this.store().get(id);
    if (found === undefined) {
      throw new SessionError(
        unknownSessionMessage(id, this.root, this.store().idsStartingWith(id, this.root)),
      );
    }
    if (found.root !== this.root) throw new SessionError(otherFolderMessage(id, found.root, this.root, then));
    return { createdAt: found.createdAt, closedAt: found.closedAt };
  }

  /** Which Lathe process runs an agent in which session, across processes (opened on first use). */
  /** Which files calls are changing now, across sessions and processes (opened on a first write). */
  private fileClaims(): FileClaims {
    this.claims ??= new FileClaims(this.database());
    return this.claims;
  }

  private sessionUsers(): SessionUsers {
    this.users ??= new SessionUsers(this.database());
    return this.users;
  }

  private runLeases(): RunLeases {
    this.leases ??= new RunLeases(this.database());
    return this.leases;
  }

  /**
   * Hold a persistent session for a run until the lease is released: two runs appending to one
   * conversation would interleave it. Throws SessionError while a run goes on in the session,
   * in this process or in another one on this LATHE_HOME. `onError` hears a renewal that failed.
   */
  holdSessionForRun(sessionId: string, onError: (err: unknown) => void): RunLease {
    const { lease, holder } = this.runLeases().acquire(sessionId, onError);
    if (lease) return lease;
    throw this.busy(sessionId, holder);
  }

  /** The refusal of a session another run holds (`session_busy`): what holds it, and what to do. */
  private busy(sessionId: string, holder: LeaseHolder): SessionError {
    return new SessionError(
      `Session ${sessionId} is in use ${this.describeHolder(holder)}: wait for that run to end, or stop it, then try again.`,
      { busy: true },
    );
  }

  /**
   * Where a run is going on in the session now, in words ("by another Lathe process (pid …)"), or
   * undefined when none is: a replay of a run that recorded no end tells a live run from a dead one.
   */
  runningIn(sessionId: string): string | undefined {
    return this.inUse(sessionId);
  }

  /**
   * Which process runs the session now by its run lease, in words ("in another Lathe process
   * (pid …)"), or undefined when none does: a task whose recorded run has no end may still be
   * running elsewhere rather than interrupted. A session merely open for tool calls is not a run.
   */
  runHolder(sessionId: string): string | undefined {
    const holder = this.runLeases().holder(sessionId);
    if (!holder) return undefined;
    if (this.runLeases().isThisProcess(holder))
      return `in this Lathe process (pid ${holder.pid}), by another engine`;
    const since = new Date(holder.startedAt).toISOString().replace(/\.\d+Z$/, "Z");
    return `in another Lathe process (pid ${holder.pid} on ${holder.host}, since ${since})`;
  }

  /**
   * Why a session may not be changed now (a rewind, a delete), or undefined: it is open in this
   * engine, or a run holds it in another Lathe process.
   */
  private inUse(sessionId: string): string | undefined {
    if ([...this.open].some((s) => s.id === sessionId)) return "here (a run is going on in it)";
    const holder = this.runLeases().holder(sessionId);
    if (holder) return this.describeHolder(holder);
    const mine = new Set([...this.uses.values()].map((u) => u.token));
    const user = this.sessionUsers().otherUser(sessionId, mine);
    return user ? this.describeUser(user) : undefined;
  }

  /**
   * Throw SessionError (`session_busy`) while a run goes on in the session or another process has
   * it open for tool calls: "stop it, then <then>".
   */
  private refuseWhileInUse(sessionId: string, then: string): void {
    const why = this.inUse(sessionId);
    if (why) {
      const stop = why.includes("tool calls") ? "let those calls end (or stop that process)" : "stop the run";
      throw new SessionError(`Session ${sessionId} is in use ${why}: ${stop}, then ${then}.`, {
        busy: true,
      });
    }
  }

  private describeUser(user: SessionUser): string {
    const since = new Date(user.startedAt).toISOString().replace(/\.\d+Z$/, "Z");
    return this.sessionUsers().isThisProcess(user)
      ? `here (it is open for tool calls since ${since})`
      : `by another Lathe process (pid ${user.pid} on ${user.host}, which has it open for tool calls since ${since})`;
  }

  /**
   * Why a persistent session's calls may no longer run, or undefined: another process deleted or
   * closed it while this one had it open (its users were hung, or on another machine).
   */
  private sessionLost(id: string): string | undefined {
    const found = this.store().get(id);
    if (found === undefined) {
      return `Session ${id} was deleted by another Lathe process (lathe session delete, or the app) while this one had it open, so its calls can no longer be recorded. Nothing was changed. Start a new session (another --session id, or none) and call again.`;
    }
    if (found.closedAt !== null) {
      return `Session ${id} was closed while this call waited to run. Nothing was changed. Open it again (--session ${id}) or start a new one, and call again.`;
    }
    return undefined;
  }

  private describeHolder(holder: LeaseHolder): string {
    if (this.runLeases().isThisProcess(holder)) return "here (a run is going on in it)";
    const since = new Date(holder.startedAt).toISOString().replace(/\.\d+Z$/, "Z");
    return `by another Lathe process (pid ${holder.pid} on ${holder.host}, running since ${since})`;
  }

  /** The "always" answers the persistent sessions of this folder keep (a session's run loads them). */
  sessionApprovals(): StoredApproval[] {
    return approvalsUnder(this.database(), this.root);
  }

  /**
   * Forget one "always" answer of a session, or all of them: its next call with that key asks
   * again. Refused while the session is open here (a run holds its answers in memory); throws
   * SessionError when the session has no such answer. Returns how many went.
   */
  revokeSessionApprovals(sessionId: string, which?: { tool: string; key: string }): number {
    this.refuseWhileInUse(sessionId, "revoke its answers");
    const gone = revokeApprovals(this.database(), sessionId, which);
    if (gone === 0) {
      throw new SessionError(
        which
          ? `Session ${sessionId} has no "always" answer for ${which.tool} ${which.key}.`
          : `Session ${sessionId} has no "always" answers to revoke.`,
      );
    }
    return gone;
  }

  private sessionDir(id: string): string {
    return path.join(this.latheHome, "sessions", id);
  }

  /**
   * What the OS sandbox hides from the engine's processes, for its own file tools and checkpoints
   * to hide too (see HiddenPathSet); `readable`: folders inside it that stay readable (a
   * session's own truncated outputs). A fresh set per use: it keeps what it resolved.
   */
  private hiddenPaths(readable: readonly string[]): HiddenPathSet {
    return HiddenPathSet.of({
      denyRead: this.policy.sandbox.denyRead,
      latheHome: this.latheHome,
      readable,
      settingsFile: this.policy.userSettingsFile,
    });
  }

  private variables(state: SessionState): PathVariables {
    return { workspace: [this.root], "ad-hoc": [], "user-data": [this.latheHome], session: [state.dir] };
  }

  /**
   * Open a session. Without an id it is ephemeral: in memory, its files removed at close. With
   * an id it persists in `$LATHE_HOME` (read-state, approvals, sidecars) until `closeSession(id)`.
   * A persistent session a run in another Lathe process holds is refused (SessionError, busy).
   */
  async openSession(options: OpenSessionOptions = {}): Promise<Session> {
    const taken: { use?: SessionUse } = {};
    try {
      const session = await this.openSessionTaking(options, taken);
      if (taken.use) this.uses.set(session, taken.use);
      return session;
    } catch (err) {
      // Not opened after all: the use it took would refuse deletes until this process ends.
      taken.use?.end();
      throw err;
    }
  }

  /** openSession's work; a persistent session's use, once taken, is put in `taken`. */
  private async openSessionTaking(
    options: OpenSessionOptions,
    taken: { use?: SessionUse },
  ): Promise<Session> {
    let state: SessionState;
    const persistent = options.id !== undefined;
    const approvalStores: ApprovalPersistence[] = [];
    // The services a session's tools reach through `runtime.session` (see ToolSession).
    const services = (id: string) => ({
      ...(options.asker ? { asker: options.asker } : {}),
      exposure: new ToolExposure(this.registry),
      todos: this.todos.listOf(id),
    });
    if (options.id === undefined) {
      const id = newSessionId();
      state = new SessionState({ id, dir: this.sessionDir(id), ...services(id) });
    } else {
      const id = options.id;
      const invalid = sessionIdProblem(id);
      if (invalid) throw new SessionError(invalid);
      // A run in another process has the conversation and its read state in memory: a call may
      // not change them under it (this process's own run opens its session here, holding it).
      const holder = this.runLeases().holder(id);
      if (holder && !this.runLeases().isThisProcess(holder)) throw this.busy(id, holder);
      const store = this.store();
      // Found (or made) and taken for use in one transaction: a delete in another process either
      // goes first (the session is then made anew) or sees this use and is refused.
      const { existing, use } = writeTransaction(this.database(), () => {
        const found = store.get(id);
        if (found && found.closedAt === null && found.root !== this.root) {
          throw new SessionError(
            `Session ${id} belongs to the folder ${found.root}, not ${this.root}. Pass --root ${found.root} or choose another session id.`,
          );
        }
        if (!found) store.create(id, this.root);
        else if (found.closedAt !== null) store.reopen(id, this.root);
        const renewalFailed = (err: unknown): void => {
          this.events.emit("internal-error", { toolId: "session", sessionId: id, error: err });
        };
        return { existing: found, use: this.sessionUsers().enter(id, renewalFailed) };
      })();
      taken.use = use;
      state = new SessionState({
        id,
        dir: this.sessionDir(id),
        reads: store.reads(id),
        persistence: store.persistence(id),
        ...services(id),
      });
      // A process killed while writing a sidecar (kill -9 mid-command) left it half-written.
      if (existing) await state.removeAbandonedFiles();
      approvalStores.push(sessionApprovals(this.database(), id));
    }
    if (this.policy.cacheApprovalsInProject)
      approvalStores.push(projectApprovals(this.database(), this.root));
    const mode = options.mode ?? this.policy.mode ?? "ask";
    const sessionRules = (options.manifestRules ?? []).map((r): ScopedRule => ({
      ...r,
      scope: "manifest",
      source: r.source ?? "the session's agent manifest",
    }));
    const session = new Session({
      registry: this.registry,
      root: this.root,
      state,
      persistent,
      mode,
      policy: sessionPolicy({
        root: this.root,
        latheHome: this.latheHome,
        sessionId: state.id,
        agent: options.agent ?? this.agent,
        config: this.policy,
        ruleset:
          sessionRules.length > 0 || options.ceiling
            ? new Ruleset([...sessionRules, ...this.policy.rules], options.ceiling)
            : this.ruleset,
        mode,
        approver: options.approver,
        approvals: new ApprovalCache(approvalStores),
        sandbox: this.sandbox.status,
        protectedPaths: this.sandbox.protectedPaths,
      }),
      // Its commands may read the whole outputs its truncated results point to (output_path).
      sandbox: this.sandbox.scope({ tempDir: () => state.tempDir(), readable: [state.sidecarDir] }),
      observer: callRecorder(state.id, this.root, this.events, () => this.audit()),
      capabilityFor: (tool: AnyTool, s: SessionState) => {
        const vars = this.variables(s);
        return new FsCapability({
          root: this.root,
          read: PathScope.compile(tool.requires.fs?.read, vars),
          write: PathScope.compile(tool.requires.fs?.write, vars),
          // What the OS sandbox hides from the session's commands, hidden from every tool too
          // (its commands may read their own truncated outputs; so may read).
          hidden: this.hiddenPaths([s.sidecarDir]),
        });
      },
      onInternalError: (toolId, sessionId, error) => {
        this.events.emit("internal-error", { toolId, sessionId, error });
      },
      ...(persistent && this.recordCheckpoints ? { checkpoints: this.checkpoints.forSession(state.id) } : {}),
      fileClaims: { claim: (paths, signal) => this.fileClaims().claim(paths, signal) },
      ...(persistent ? { lost: () => this.sessionLost(state.id) } : {}),
      onClose: async (s) => {
        this.open.delete(s);
        this.endUse(s);
        if (s.persistent) this.store().close(s.id);
        this.todos.drop(s.id, s.persistent);
        await s.state.removeFiles();
        if (s.persistent) await this.checkpoints.sessionClosed(s.id);
      },
      onRelease: (s) => {
        this.open.delete(s);
        this.endUse(s);
        const removal = s.state
          .removeTemp()
          .catch((err: unknown) => {
            this.events.emit("internal-error", { toolId: "session", sessionId: s.id, error: err });
          })
          .finally(() => this.removals.delete(removal));
        this.removals.add(removal);
      },
    });
    this.open.add(session);
    return session;
  }

  /** A persistent session no longer used here: other processes may delete, close or rewind it. */
  private endUse(s: Session): void {
    const use = this.uses.get(s);
    this.uses.delete(s);
    try {
      use?.end();
    } catch (err) {
      // Its row then counts for nothing once this process has ended (or goes stale).
      this.events.emit("internal-error", { toolId: "session", sessionId: s.id, error: err });
    }
  }

  /** End a persistent session by id, whether or not it is open here. */
  async closeSession(id: string): Promise<void> {
    for (const s of this.open) if (s.id === id) return s.close();
    // Closing removes the session's files: not under a run going on in another process.
    this.refuseWhileInUse(id, "close the session");
    if (this.requireOwnSession(id, "close it").closedAt !== null) {
      throw new SessionError(
        `Session ${id} is already closed. Its checkpoints stay (lathe checkpoints --session ${id}); lathe session delete ${id} removes it for good.`,
      );
    }
    this.store().close(id);
    this.todos.drop(id);
    await rm(this.sessionDir(id), { recursive: true, force: true });
    await this.checkpoints.sessionClosed(id);
  }

  /** Close ephemeral sessions, release persistent ones, flush the audit trail, close the database. */
  async close(): Promise<void> {
    await this.extensionsHost?.close();
    this.extensionsHost = undefined;
    for (const s of [...this.open]) {
      if (s.persistent) s.release();
      else await s.close();
    }
    // A CLI exits as soon as this resolves: a released session's temp folder must be gone by
    // then, and the start-up sweep done (not cut half-way through a removal).
    await Promise.all([...this.removals, this.tempSweep]);
    this.textBacklog?.stop.abort();
    await this.textBacklog?.done;
    this.textBacklog = undefined;
    const audit = this.auditLog;
    audit?.flush();
    // Only calls waiting to be recorded make a failure here: a command that recorded none (lathe
    // audit, on a database that cannot be opened) has said why already, and is not told "0 tool
    // calls are missing" nor "no further tool call runs" after it.
    const failed = (audit?.unwritten() ?? 0) > 0 ? audit?.unwritable() : undefined;
    this.db?.close();
    this.db = undefined;
    this.sessionStore = undefined;
    this.auditLog = undefined;
    this.conversationStore = undefined;
    this.catalog = undefined;
    if (failed) {
      const n = audit?.unwritten() ?? 0;
      throw new AuditUnwrittenError(n, errorMessage(failed.error), { cause: failed.error });
    }
  }
}
