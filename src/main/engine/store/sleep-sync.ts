/** Block this thread for `ms`: for the waits of synchronous work (a lock held by another process). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
