import { RunStopped, type Engine } from "../engine/index.ts";

/** How long a run outlives the UI that started it, waiting for a reload to come back and adopt it. */
export const RUN_GRACE_MS = 5_000;

/** Why a run stopped when no UI came back for it: every tab still showing it says so. */
export const TAB_CLOSED = "the tab that started it was closed";

/** Why the runs still going on stopped when the host itself closed. */
export const HOST_CLOSED = "Lathe closed while it ran";

/** What one chat send started: its run and the background tasks that may outlive it. */
export interface OwnedWork {
  sessionId: string;
  /** The engine it works on: not closed while the work goes on. */
  engine: Engine;
  /** Stop the run and its tasks, saying why. */
  stop(reason: Error): void;
  /** Settles once the run and its tasks have ended. */
  done: Promise<void>;
}

interface Entry extends OwnedWork {
  /** The UI it belongs to; none while it waits to be adopted. */
  owner: object | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Which UI each chat run (and the background tasks it started) belongs to, across the UIs of a
 * host. A run is its starter's; when that UI goes away (a closed tab, but also a reload or a
 * dropped connection, which look the same from here) the run goes on for a grace period, and the
 * first UI to open its chat in that time adopts it. Whatever nobody adopts is stopped, saying why:
 * nothing goes on unseen. A UI that only watches a run owns nothing, and leaving costs it nothing.
 */
export class RunOwners {
  private readonly graceMs: number;
  private readonly entries = new Set<Entry>();

  constructor(graceMs: number = RUN_GRACE_MS) {
    this.graceMs = graceMs;
  }

  /** `owner` started `work`: it is that UI's until the work ends, or the UI leaves and another adopts it. */
  own(owner: object, work: OwnedWork): void {
    const entry: Entry = { ...work, owner, timer: undefined };
    this.entries.add(entry);
    void work.done.finally(() => {
      clearTimeout(entry.timer);
      this.entries.delete(entry);
    });
  }

  /** How many of `owner`'s runs (or their tasks) go on. */
  count(owner: object): number {
    return [...this.entries].filter((entry) => entry.owner === owner).length;
  }

  /** Whether `owner` owns work going on in chat session `sessionId`. */
  owns(owner: object, sessionId: string): boolean {
    return [...this.entries].some((entry) => entry.owner === owner && entry.sessionId === sessionId);
  }

  /** Whether any work goes on (the extensions are not reloaded under it). */
  get busy(): boolean {
    return this.entries.size > 0;
  }

  /** The work going on on `engine`, settled once it has all ended (the engine may then close). */
  settledOn(engine: Engine): Promise<unknown> {
    return Promise.allSettled([...this.entries].filter((e) => e.engine === engine).map((e) => e.done));
  }

  /** `owner` went away: its work goes on for the grace period, then stops unless another UI adopted it. */
  leave(owner: object): void {
    for (const entry of this.entries) {
      if (entry.owner !== owner) continue;
      entry.owner = undefined;
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        if (entry.owner === undefined) entry.stop(new RunStopped(TAB_CLOSED));
      }, this.graceMs);
      // The work itself keeps the process alive while it goes on; the timer alone need not.
      entry.timer.unref?.();
    }
  }

  /**
   * `owner` opened chat session `sessionId`: the session's work whose UI went away is its own from
   * now on (it shows it going on, and its leaving starts the grace again). Returns whether it owns
   * work in the session now.
   */
  adopt(owner: object, sessionId: string): boolean {
    for (const entry of this.entries) {
      if (entry.sessionId !== sessionId || entry.owner !== undefined) continue;
      clearTimeout(entry.timer);
      entry.timer = undefined;
      entry.owner = owner;
    }
    return this.owns(owner, sessionId);
  }

  /** The host closes: stop everything at once, saying why, and wait for it to end. */
  async close(): Promise<void> {
    const entries = [...this.entries];
    for (const entry of entries) {
      clearTimeout(entry.timer);
      entry.owner = undefined;
      entry.stop(new RunStopped(HOST_CLOSED));
    }
    await Promise.allSettled(entries.map((entry) => entry.done));
  }
}
