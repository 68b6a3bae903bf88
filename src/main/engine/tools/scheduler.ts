const settle = (): undefined => undefined;

/**
 * Orders one session's tool calls: read-only calls run concurrently; a mutating call waits for
 * every call issued before it, runs alone, and holds back every call issued after it.
 */
export class Scheduler {
  private barrier: Promise<unknown> = Promise.resolve();
  private readonly readsInFlight = new Set<Promise<unknown>>();

  run<T>(readOnly: boolean, task: () => Promise<T>): Promise<T> {
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
    this.barrier = result.then(settle, settle);
    this.readsInFlight.clear();
    return result;
  }
}
