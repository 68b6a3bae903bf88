import { RunStopped, type Engine } from "../engine/index.ts";

/** How long a run outlives the tab that started it, waiting for that tab to come back (a reload). */
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
  /** The id of the tab it belongs to (see tab-id.ts and LiveTabs). */
  tab: string;
  /** Set while its tab is away: the run stops when it fires. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Which tab each chat run (and the background tasks it started) belongs to, across the UIs of a
 * host. A run is the tab's that started it, keyed by that tab's id, which survives a reload of the
 * tab (LiveTabs decides which tab a connection is). When the tab goes away (closed, reloading, or
 * its connection dropped, which look the same from here) its runs go on for a grace period: the
 * same tab coming back in that time has them again at once; nobody else takes them over. What is
 * still away when the grace ends is stopped, saying why: nothing goes on unseen. A tab that only
 * watches a run owns nothing, and leaving costs it nothing.
 */
export class RunOwners {
  private readonly graceMs: number;
  private readonly entries = new Set<Entry>();
  /** The tabs connected now; a run of any other tab is waiting for its tab. */
  private readonly here = new Set<string>();

  constructor(graceMs: number = RUN_GRACE_MS) {
    this.graceMs = graceMs;
  }

  /**
   * Tab `tab` started `work`: it is that tab's until the work ends. Work started for a tab that is
   * no longer here (it went away while the run was set up) waits for it like the tab's others.
   */
  own(tab: string, work: OwnedWork): void {
    const entry: Entry = { ...work, tab, timer: undefined };
    this.entries.add(entry);
    if (!this.here.has(tab)) this.wait(entry);
    void work.done.finally(() => {
      clearTimeout(entry.timer);
      this.entries.delete(entry);
    });
  }

  /** How many of `tab`'s runs (or their tasks) go on. */
  count(tab: string): number {
    return [...this.entries].filter((entry) => entry.tab === tab).length;
  }

  /** Whether `tab` owns work going on in chat session `sessionId`. */
  owns(tab: string, sessionId: string): boolean {
    return [...this.entries].some((entry) => entry.tab === tab && entry.sessionId === sessionId);
  }

  /** Whether any work goes on (the extensions are not reloaded under it). */
  get busy(): boolean {
    return this.entries.size > 0;
  }

  /** The work going on on `engine`, settled once it has all ended (the engine may then close). */
  settledOn(engine: Engine): Promise<unknown> {
    return Promise.allSettled([...this.entries].filter((e) => e.engine === engine).map((e) => e.done));
  }

  /** Tab `tab` is connected (again): its runs waiting for it are its own again, nothing stops them. */
  arrive(tab: string): void {
    this.here.add(tab);
    for (const entry of this.entries) {
      if (entry.tab !== tab) continue;
      clearTimeout(entry.timer);
      entry.timer = undefined;
    }
  }

  /** Tab `tab` went away: its work goes on for the grace period, then stops unless the tab came back. */
  leave(tab: string): void {
    if (!this.here.delete(tab)) return;
    for (const entry of this.entries) if (entry.tab === tab) this.wait(entry);
  }

  private wait(entry: Entry): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (!this.here.has(entry.tab)) entry.stop(new RunStopped(TAB_CLOSED));
    }, this.graceMs);
    // The work itself keeps the process alive while it goes on; the timer alone need not.
    entry.timer.unref?.();
  }

  /** The host closes: stop everything at once, saying why, and wait for it to end. */
  async close(): Promise<void> {
    const entries = [...this.entries];
    for (const entry of entries) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      entry.stop(new RunStopped(HOST_CLOSED));
    }
    await Promise.allSettled(entries.map((entry) => entry.done));
  }
}
