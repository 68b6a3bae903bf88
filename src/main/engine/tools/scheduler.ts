/** One call's place in the order, taken when the call is issued. */
export interface SchedulerSlot {
  /** Whether calls issued before it hold it back now. */
  held(): boolean;
  /** Resolves when its turn comes (never, if it is released before then). */
  readonly turn: Promise<void>;
  /**
   * The call is done: it ran, failed, or will not run (stopped while it waited, arguments that do
   * not fit). The calls behind it go on as soon as the calls before it allow. Idempotent.
   */
  release(): void;
}

interface OpenSlot {
  readonly readOnly: boolean;
  started: boolean;
  start(): void;
}

/**
 * Orders one session's tool calls: read-only calls run concurrently; a mutating call waits for
 * every call issued before it, runs alone, and holds back every call issued after it. A call
 * takes its slot when it is issued and gives it back when it is done; one given back before its
 * turn (stopped while it waited) leaves the order at once, so it ends at once and holds no one.
 */
export class Scheduler {
  /** Slots taken and not yet released, in issue order. */
  private readonly open: OpenSlot[] = [];

  /** Take the next place in the order (see SchedulerSlot); release it whatever happens. */
  take(readOnly: boolean): SchedulerSlot {
    const { promise, resolve } = Promise.withResolvers<void>();
    const slot: OpenSlot = { readOnly, started: false, start: () => resolve() };
    this.open.push(slot);
    this.startReady();
    let released = false;
    return {
      held: () => !slot.started && !released,
      turn: promise,
      release: () => {
        if (released) return;
        released = true;
        const at = this.open.indexOf(slot);
        if (at !== -1) this.open.splice(at, 1);
        this.startReady();
      },
    };
  }

  /** Start every slot nothing issued before it holds back any more. */
  private startReady(): void {
    let writeBefore = false;
    let anyBefore = false;
    for (const slot of this.open) {
      const held = slot.readOnly ? writeBefore : anyBefore;
      if (!held && !slot.started) {
        slot.started = true;
        slot.start();
      }
      if (!slot.readOnly) writeBefore = true;
      anyBefore = true;
    }
  }
}
