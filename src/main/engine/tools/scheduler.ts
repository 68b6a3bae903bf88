const settle = (): undefined => undefined;

/**
 * Orders one session's tool calls: read-only calls run concurrently; a mutating call waits for
 * every call issued before it, runs alone, and holds back every call issued after it.
 */
export class Scheduler {
  private barrier: Promise<unknown> = Promise.resolve();
  private readonly readsInFlight = new Set<Promise<unknown>>();
  /** Mutating calls issued and not yet settled (the barrier is pending while there are any). */
  private writesPending = 0;

  /**
   * Run `task` in its turn. `onHeld` is told at once, before this returns, when the task cannot
   * start yet because calls issued before it hold it back.
   */
  run<T>(readOnly: boolean, task: () => Promise<T>, onHeld?: () => void): Promise<T> {
    const held = this.writesPending > 0 || (!readOnly && this.readsInFlight.size > 0);
    if (held) onHeld?.();
    if (readOnly) {
      const result = this.barrier.then(task);
      const done = result.then(settle, settle);
      this.readsInFlight.add(done);
      void done.then(() => this.readsInFlight.delete(done));
      return result;
    }
    const before =
      this.readsInFlight.size > 0 ? Promise.all([this.barrier, ...this.readsInFlight]) : this.barrier;
    const result = before.then(task);
    this.writesPending++;
    const written = (): undefined => {
      this.writesPending--;
      return undefined;
    };
    this.barrier = result.then(written, written);
    this.readsInFlight.clear();
    return result;
  }
}
