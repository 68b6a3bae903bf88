import type { ProjectStatus } from "../../shared/api-contract.ts";
import type { ExtensionsStatus } from "../../shared/extensions-schemas.ts";
import type { TrustReview } from "../../shared/trust-review-schema.ts";
import {
  Engine,
  TrustStore,
  type EngineOptions,
  describeTrustReview,
  trustProject,
} from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { extensionsStatus } from "./extensions-status.ts";
import { ExtensionsWatch } from "./extensions-watch.ts";
import { LiveRuns } from "./live-runs.ts";
import { SessionPrompts } from "./session-prompts.ts";
import { LiveTasks } from "./live-tasks.ts";
import { resolveProjectPath } from "./project-path.ts";
import { RecentProjects } from "./recent-projects.ts";
import { LiveTabs } from "./live-tabs.ts";
import { RunOwners } from "./run-owners.ts";
import { SessionsInUse } from "./sessions-in-use.ts";
import { settingsStamp } from "./settings-stamp.ts";
import { UnsandboxedMcpGate } from "./unsandboxed-mcp-gate.ts";
import { errorMessage } from "../engine/light.ts";

/** Something that works on the host's engine (a window, a WebSocket) and must follow it when it is replaced. */
export interface EngineUser {
  /**
   * Send new calls to `next` from now on. Resolves once that is so, with `released`: a promise
   * that settles when the previous engine is no longer used (its running calls have ended).
   */
  switchTo(next: Engine): Promise<{ released: Promise<void> }>;
  /** Whether it has calls running (the registry is not changed under them). */
  busy?(): boolean;
  /** Plugins, servers or the tools they bring changed. */
  extensionsChanged?(status: ExtensionsStatus): void;
  /** The folder's session list changed; `deleted`: sessions just deleted (see EngineHost.sessionsChanged). */
  sessionsChanged?(deleted?: string[]): void;
  /** The project's status (trust, notices) changed without a new engine (see EngineHost.checkSettings). */
  projectChanged?(status: ProjectStatus): void;
}

interface EngineHostOptions {
  /** The engine to start with; it stays the caller's to close. */
  engine: Engine;
  /**
   * A fresh engine for a folder: the current one after a trust or a settings change (policy and
   * settings are read when an engine is created), another one when the person opens it.
   */
  createEngine?: (root: string) => Promise<Engine>;
  /**
   * How often to look for extension changes, and for settings or trust changed outside the app
   * (default 500 ms); 0 only looks when asked.
   */
  watchIntervalMs?: number;
  /**
   * Who is asked before a stdio MCP server starts without the OS sandbox. Give its `approver` to
   * the first engine too; the engines this host creates get it. Default: a gate of its own.
   */
  unsandboxedMcp?: UnsandboxedMcpGate;
  /**
   * How long a chat run outlives the tab that started it, for that tab to come back (a reload)
   * (default RUN_GRACE_MS).
   */
  runGraceMs?: number;
}

/**
 * Where a host's engines keep their data and find the bundled plugins (defaults: the engine's),
 * and who approves an MCP server that would start without the OS sandbox.
 */
type LoggedEngineOptions = Pick<EngineOptions, "latheHome" | "bundledPluginsDir" | "approveUnsandboxedMcp">;

/**
 * An engine for the folder whose runtime failures, and the exact command of each MCP server it
 * starts for the first time, go to the host's terminal.
 */
export async function createLoggedEngine(root: string, options: LoggedEngineOptions = {}): Promise<Engine> {
  const { latheHome, bundledPluginsDir, approveUnsandboxedMcp } = options;
  const engine = await Engine.create({
    root,
    ...(latheHome !== undefined ? { latheHome } : {}),
    ...(bundledPluginsDir !== undefined ? { bundledPluginsDir } : {}),
    ...(approveUnsandboxedMcp !== undefined ? { approveUnsandboxedMcp } : {}),
    onMcpEvent: (event) => {
      if (event.type === "starting" && event.first) {
        console.error(`lathe: starting MCP server ${event.server} (${event.layer}): ${event.commandLine}`);
      }
    },
    // The app's log says why the first call after an upgrade waits (indexing a large audit table).
    onLongMigration: (notice) => console.error(`lathe: ${notice}`),
  });
  engine.events.on("internal-error", ({ toolId, error }) =>
    console.error(`lathe: ${toolId} failed inside Lathe:`, error),
  );
  // Each call refused meanwhile says why to the model and the person; the log keeps the cause.
  engine.events.on("AuditFailed", ({ error }) =>
    console.error("lathe: the audit trail cannot be written, so no tool call runs:", error),
  );
  return engine;
}

/**
 * The project as the UI shows it: root, trust, and the notices to tell the user once (first,
 * `settingsProblem`: why settings changed outside the app could not be applied).
 */
export function projectStatus(engine: Engine, settingsProblem?: string): ProjectStatus {
  const notices = [...(settingsProblem === undefined ? [] : [settingsProblem]), ...engine.notices];
  return { root: engine.root, trusted: engine.policy.projectTrusted, notices };
}

/**
 * The engine a host (the Electron app, `lathe serve`) currently runs on. Trusting the project or
 * changing the user's settings replaces it: a new engine reads the settings in full, every
 * registered user moves to it, and the old one closes once its running calls have ended. Engines
 * it created are its own to close; the first one stays the caller's. It also keeps the users'
 * extensions panels live (see ExtensionsWatch).
 */
export class EngineHost {
  private engine: Engine;
  private readonly createEngine: (root: string) => Promise<Engine>;
  /** The folders opened lately, in `$LATHE_HOME/recent-projects.json`. */
  readonly recent: RecentProjects;
  /** Asks a connected UI before a stdio MCP server starts without the OS sandbox. */
  readonly unsandboxedMcp: UnsandboxedMcpGate;
  private readonly users = new Set<EngineUser>();
  /** Chat sessions with a run going on, across every UI: one run per session at a time. */
  readonly chatSessions = new SessionsInUse(() => this.sessionsChanged());
  /** The chat runs going on, across every UI: each UI follows them and can stop them. */
  readonly liveRuns = new LiveRuns();
  /** Which tab each chat run belongs to: a run whose tab went away and did not come back stops. */
  readonly runOwners: RunOwners;
  /** Which tab each UI connection is (by the id its page keeps), so a reloaded tab has its runs again. */
  readonly tabs: LiveTabs;
  /** The chats' background tasks, on any of its engines: each UI lists them and can stop them. */
  readonly liveTasks = new LiveTasks((frame) => this.liveRuns.broadcast(frame));
  /** The chat runs' approval prompts and questions, across every UI: each UI showing the session answers them. */
  readonly chatPrompts = new SessionPrompts(
    (frame) => this.liveRuns.broadcast(frame),
    () => this.sessionsChanged(),
  );
  private readonly created = new Set<Engine>();
  private readonly retiring = new Set<Promise<void>>();
  private changes: Promise<unknown> = Promise.resolve();
  private readonly watch: ExtensionsWatch;
  /** The settings and trust the current engine was created from (see settingsStamp). */
  private settingsSeen: string;
  /** Why settings changed outside the app could not be applied; cleared by the next engine. */
  private settingsProblem: string | undefined;
  private settingsTimer: NodeJS.Timeout | undefined;
  private settingsLooking = false;
  /** Changes the app itself is making to settings or trust (see changingSettings). */
  private settingsWriters = 0;

  constructor(options: EngineHostOptions) {
    this.engine = options.engine;
    this.runOwners = new RunOwners(options.runGraceMs);
    this.tabs = new LiveTabs(this.runOwners);
    const { root, latheHome } = options.engine;
    this.unsandboxedMcp = options.unsandboxedMcp ?? new UnsandboxedMcpGate();
    const approveUnsandboxedMcp = this.unsandboxedMcp.approver;
    this.createEngine =
      options.createEngine ?? ((folder) => createLoggedEngine(folder, { latheHome, approveUnsandboxedMcp }));
    this.recent = new RecentProjects(latheHome);
    this.remember(root);
    this.liveTasks.watch(options.engine);
    this.watch = new ExtensionsWatch({
      engine: () => this.engine,
      idle: () => !this.runOwners.busy && ![...this.users].some((user) => user.busy?.() === true),
      onChange: (engine) => this.announce(engine),
      ...(options.watchIntervalMs !== undefined ? { intervalMs: options.watchIntervalMs } : {}),
    });
    if (options.watchIntervalMs !== 0) this.watch.start();
    this.settingsSeen = settingsStamp(root, latheHome);
    if (options.watchIntervalMs !== 0) {
      this.settingsTimer = setInterval(() => {
        if (!this.settingsLooking) void this.checkSettings();
      }, options.watchIntervalMs ?? 500);
      this.settingsTimer.unref();
    }
  }

  get current(): Engine {
    return this.engine;
  }

  status(): ProjectStatus {
    return projectStatus(this.engine, this.settingsProblem);
  }

  /** What trusting the project would turn on (plugins, MCP servers, settings), for the trust dialog. */
  review(): Promise<TrustReview> {
    return describeTrustReview(this.engine.root, this.engine.latheHome);
  }

  /** What the extensions panels show, for the current engine. */
  extensions(): Promise<ExtensionsStatus> {
    return extensionsStatus(this.engine);
  }

  /** Apply what waits (when no call runs) and tell every user the extensions' status now. */
  refreshExtensions(): Promise<void> {
    return this.watch.check(true);
  }

  /**
   * A session started, was renamed or deleted, or a run in one began or ended: every UI's session
   * list (another window, another browser tab) is out of date; one that has a deleted session open
   * must leave it.
   */
  sessionsChanged(deleted?: string[]): void {
    for (const user of this.users) user.sessionsChanged?.(deleted);
  }

  /** Follow engine replacements from now on; returns the function that stops. */
  register(user: EngineUser): () => void {
    this.users.add(user);
    return () => {
      this.users.delete(user);
    };
  }

  /**
   * Trust the project (once; later calls only report the status): record it, pin its plugins and
   * MCP servers as they are now (what changes later needs approval again), and reload.
   */
  trust(reviewed?: string): Promise<ProjectStatus> {
    return this.serial(() => this.trustNow(reviewed));
  }

  /** The user's settings changed: move everyone to a new engine that reads them. */
  reload(): Promise<void> {
    return this.serial(async () => {
      await this.replace(
        (message) => `Lathe could not reload its settings: ${message} Fix the settings, then try again.`,
      );
    });
  }

  /**
   * Move to a new engine when the settings files or the folder's trust changed outside the app
   * (a settings file edited by hand, \`lathe trust\` or \`--revoke\` run meanwhile), as a change
   * made in the app does: a deny rule written by hand applies to the next call, and a revoked
   * trust takes the project's allow rules, hooks and servers away. Calls and chat runs going on
   * finish on the engine they started on. Settings that cannot be read keep the engine as it is
   * and say why in the project's notices until a later change can be read. Resolves with whether
   * anything had changed.
   */
  checkSettings(): Promise<boolean> {
    this.settingsLooking = true;
    return this.serial(async () => {
      if (this.settingsWriters > 0) return false;
      const now = settingsStamp(this.engine.root, this.engine.latheHome);
      if (now === this.settingsSeen) return false;
      this.settingsSeen = now;
      try {
        await this.replace(
          (message) =>
            `Your settings changed, but Lathe cannot apply them, so it goes on with the settings it read before: ${message} Lathe applies the file as soon as it can read it.`,
        );
      } catch (error) {
        this.settingsProblem = errorMessage(error);
        console.error(`lathe: ${this.settingsProblem}`);
        const status = this.status();
        for (const user of this.users) user.projectChanged?.(status);
      }
      return true;
    }).finally(() => {
      this.settingsLooking = false;
    });
  }

  /**
   * Run a change the app makes to settings or trust itself (the Settings view, the Plugins and
   * MCP panels), which applies what it wrote (by `reload`, or a plugin reload), so that
   * checkSettings does not take it for a change made outside the app: it does not look
   * meanwhile, and takes what the files hold afterwards as seen.
   */
  async changingSettings<T>(work: () => Promise<T>): Promise<T> {
    this.settingsWriters++;
    try {
      return await work();
    } finally {
      this.settingsWriters--;
      if (this.settingsWriters === 0)
        this.settingsSeen = settingsStamp(this.engine.root, this.engine.latheHome);
    }
  }

  /**
   * Open another folder: check the path, move every user to an engine for it (the old one closes
   * once its calls have ended) and put it first in the recent projects. Refused while a chat run
   * or a background task goes on (it works in the folder it started in). Opening the current folder changes nothing.
   */
  open(folder: string): Promise<ProjectStatus> {
    return this.serial(async () => {
      const root = await resolveProjectPath(folder);
      if (root === this.engine.root) {
        this.remember(root);
        return this.status();
      }
      if (this.chatSessions.size > 0) {
        throw new ApiError(
          `A chat run is going on in ${this.engine.root}: wait for it to finish or stop it, then open ${root}.`,
        );
      }
      const tasks = this.liveTasks.running();
      if (tasks.length > 0) {
        const names = tasks.map((task) => `"${task.description}"`).join(", ");
        throw new ApiError(
          `${tasks.length === 1 ? "A background task is" : `${tasks.length} background tasks are`} still working in ${tasks[0]!.root} (${names}): stop ${tasks.length === 1 ? "it" : "them"} in the chat's task list, or wait for ${tasks.length === 1 ? "it" : "them"} to finish, then open ${root}.`,
        );
      }
      await this.replace(
        (message) => `Lathe could not open ${root}: ${message} Fix it, then open the folder again.`,
        root,
      );
      this.remember(root);
      return this.status();
    });
  }

  private remember(root: string): void {
    try {
      this.recent.add(root);
    } catch (error) {
      console.error(`lathe: could not update ${this.recent.file}:`, error);
    }
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.changes.then(work);
    this.changes = run.catch(() => undefined);
    return run;
  }

  private async trustNow(reviewed?: string): Promise<ProjectStatus> {
    const old = this.engine;
    if (old.policy.projectTrusted) return this.status();
    const failed = (message: string) =>
      `The folder is now trusted, but Lathe could not reload its settings: ${message} Fix the settings, then reopen the folder.`;
    try {
      const { mcpServers } = await trustProject(old.root, old.latheHome, reviewed);
      for (const result of mcpServers) {
        if (result.error !== undefined) {
          console.error(
            `lathe: MCP server ${result.name} could not list its tools for approval: ${result.error}`,
          );
        }
      }
    } catch (error) {
      // A trust that could not be recorded is reported as it is; a pin that failed after it, as above.
      if (!new TrustStore(old.latheHome).isTrusted(old.root)) throw error;
      const message = errorMessage(error);
      throw new Error(failed(message), { cause: error });
    }
    await this.replace(failed);
    return this.status();
  }

  /** Create the next engine, move every user to it, and retire the old one once released. */
  private async replace(failure: (message: string) => string, root = this.engine.root): Promise<void> {
    const old = this.engine;
    // Taken before the engine reads them: a change while it is created is seen by the next look.
    const stamp = settingsStamp(root, old.latheHome);
    let next: Engine;
    try {
      next = await this.createEngine(root);
    } catch (error) {
      const message = errorMessage(error);
      throw new Error(failure(message), { cause: error });
    }
    this.created.add(next);
    // Tasks still working on the old engine go on there; runs on the new one can collect them.
    if (next.root === old.root) next.tasks.adopt(old.tasks);
    this.liveTasks.watch(next);
    this.engine = next;
    this.settingsSeen = stamp;
    this.settingsProblem = undefined;
    const switched = await Promise.allSettled([...this.users].map((user) => user.switchTo(next)));
    const released = switched.map((result) => {
      if (result.status === "fulfilled") return result.value.released;
      console.error("lathe: a window could not move to the new engine:", result.reason);
      return Promise.resolve();
    });
    // The chat runs on it go on there too, whether or not the UI that started them is still here.
    const retired = Promise.allSettled([...released, this.runOwners.settledOn(old)]).then(() =>
      this.closeIfCreated(old),
    );
    this.retiring.add(retired);
    void retired.finally(() => this.retiring.delete(retired));
    void this.watch.check(true);
  }

  private async announce(engine: Engine): Promise<void> {
    const listeners = [...this.users].filter((user) => user.extensionsChanged);
    if (listeners.length === 0) return;
    const status = await extensionsStatus(engine);
    // The engine may have been replaced while the status was read; the next look reports that one.
    if (engine !== this.engine) return;
    for (const user of listeners) user.extensionsChanged?.(status);
  }

  private async closeIfCreated(engine: Engine): Promise<void> {
    if (!this.created.delete(engine)) return;
    this.liveTasks.unwatch(engine);
    try {
      await engine.close();
    } catch (error) {
      console.error("lathe: closing a replaced engine failed:", error);
    }
  }

  /**
   * Stop the chat runs still going on (their UIs have gone), stop watching, wait for a running
   * change and replaced engines, then close the engines this host created.
   */
  async close(): Promise<void> {
    clearInterval(this.settingsTimer);
    await this.runOwners.close();
    await this.changes;
    await this.watch.stop();
    await Promise.allSettled([...this.retiring]);
    for (const engine of [...this.created]) await this.closeIfCreated(engine);
    this.liveTasks.close();
  }
}
