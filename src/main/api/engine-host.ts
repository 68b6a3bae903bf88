import type { ProjectStatus } from "../../shared/api-contract.ts";
import { Engine, TrustStore } from "../engine/index.ts";

/** Something that works on the host's engine (a window, a WebSocket) and must follow it when it is replaced. */
export interface EngineUser {
  /**
   * Send new calls to `next` from now on. Resolves once that is so, with `released`: a promise
   * that settles when the previous engine is no longer used (its running calls have ended).
   */
  switchTo(next: Engine): Promise<{ released: Promise<void> }>;
}

export interface EngineHostOptions {
  /** The engine to start with; it stays the caller's to close. */
  engine: Engine;
  /** A fresh engine for the same folder (policy is read when an engine is created). */
  createEngine?: () => Promise<Engine>;
}

/** An engine for the folder whose runtime failures are logged (the host's terminal sees them). */
async function createLoggedEngine(root: string, latheHome: string): Promise<Engine> {
  const engine = await Engine.create({ root, latheHome });
  engine.events.on("internal-error", ({ toolId, error }) =>
    console.error(`lathe: ${toolId} failed inside Lathe:`, error),
  );
  return engine;
}

/** The project as the UI shows it: root, trust, and the notices to tell the user once. */
export function projectStatus(engine: Engine): ProjectStatus {
  return { root: engine.root, trusted: engine.policy.projectTrusted, notices: [...engine.notices] };
}

/**
 * The engine a host (the Electron app, `lathe serve`) currently runs on, and project trust:
 * trusting records it in `$LATHE_HOME`, creates a new engine (which reads the project's settings
 * in full), moves every registered user to it, and closes the old engine once its running calls
 * have ended. Engines it created are its own to close; the first one stays the caller's.
 */
export class EngineHost {
  private engine: Engine;
  private readonly createEngine: () => Promise<Engine>;
  private readonly users = new Set<EngineUser>();
  private readonly created = new Set<Engine>();
  private readonly retiring = new Set<Promise<void>>();
  private trusting: Promise<unknown> = Promise.resolve();

  constructor(options: EngineHostOptions) {
    this.engine = options.engine;
    const { root, latheHome } = options.engine;
    this.createEngine = options.createEngine ?? (() => createLoggedEngine(root, latheHome));
  }

  get current(): Engine {
    return this.engine;
  }

  status(): ProjectStatus {
    return projectStatus(this.engine);
  }

  /** Follow engine replacements from now on; returns the function that stops. */
  register(user: EngineUser): () => void {
    this.users.add(user);
    return () => {
      this.users.delete(user);
    };
  }

  /** Trust the project (once; later calls only report the status). */
  trust(): Promise<ProjectStatus> {
    const run = this.trusting.then(() => this.trustNow());
    this.trusting = run.catch(() => undefined);
    return run;
  }

  private async trustNow(): Promise<ProjectStatus> {
    const old = this.engine;
    if (old.policy.projectTrusted) return this.status();
    new TrustStore(old.latheHome).trust(old.root);
    let next: Engine;
    try {
      next = await this.createEngine();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `The folder is now trusted, but Lathe could not reload its settings: ${message} Fix the settings, then reopen the folder.`,
        { cause: error },
      );
    }
    this.created.add(next);
    this.engine = next;
    const switched = await Promise.allSettled([...this.users].map((user) => user.switchTo(next)));
    const released = switched.map((result) => {
      if (result.status === "fulfilled") return result.value.released;
      console.error("lathe: a window could not move to the trusted project's engine:", result.reason);
      return Promise.resolve();
    });
    const retired = Promise.allSettled(released).then(() => this.closeIfCreated(old));
    this.retiring.add(retired);
    void retired.finally(() => this.retiring.delete(retired));
    return this.status();
  }

  private async closeIfCreated(engine: Engine): Promise<void> {
    if (!this.created.delete(engine)) return;
    try {
      await engine.close();
    } catch (error) {
      console.error("lathe: closing a replaced engine failed:", error);
    }
  }

  /** Wait for a running trust and replaced engines to finish, then close the engines this host created. */
  async close(): Promise<void> {
    await this.trusting;
    await Promise.allSettled([...this.retiring]);
    for (const engine of [...this.created]) await this.closeIfCreated(engine);
  }
}
