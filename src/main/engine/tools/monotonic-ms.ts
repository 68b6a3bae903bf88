/**
 * Milliseconds on a monotonic clock, for how long a call took. Not `performance.now()`: the
 * `performance` global loads node:perf_hooks (its timing, observer and histogram modules) on
 * first use, about a millisecond of every `lathe call` that nothing else there needs.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
