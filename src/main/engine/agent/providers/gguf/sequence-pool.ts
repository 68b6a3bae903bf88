/**
 * A fixed set of resources (a context's sequences) lent out one caller at a time, in arrival
 * order. A sequence keeps its evaluated tokens between calls, so the next call of an agent
 * loop, whose prompt extends the last one, only evaluates what is new.
 */
export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiting: { resolve(item: T): void; reject(reason: unknown): void }[] = [];
  private closed = false;

  constructor(items: T[]) {
    this.free = [...items];
  }

  /**
   * The next free item; waits for one (telling `onWait` first, when it must), or rejects with the
   * signal's reason when it aborts.
   */
  acquire(signal?: AbortSignal, onWait?: () => void): Promise<T> {
    if (this.closed) return Promise.reject(new Error("The model was unloaded."));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.free.shift();
    if (item !== undefined) return Promise.resolve(item);
    onWait?.();
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve: (value: T) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (reason: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(item: T): void {
    const next = this.waiting.shift();
    if (next) next.resolve(item);
    else this.free.push(item);
  }

  /** Refuses new and waiting callers; items already lent out stay with their holders. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error("The model was unloaded."));
  }
}
