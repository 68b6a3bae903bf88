/** Shared formatting for `npm run bench`: every figure is printed beside its comparison. */

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Time an async function `runs` times (after `warmup` runs); returns the samples in ms. */
export async function sample(
  fn: () => Promise<unknown> | unknown,
  runs: number,
  warmup = 1,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function fmtMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(1)} ms`;
}

export function heading(title: string): void {
  console.log(`\n## ${title}`);
}

/**
 * One result line: the measured figure, the comparison measured in the same run, their ratio,
 * and the goal with whether it was met.
 */
export function compare(opts: {
  what: string;
  ours: { label: string; value: number; unit?: string };
  theirs: { label: string; value: number; unit?: string };
  goal?: string;
  met?: boolean;
}): void {
  const unit = (u: string | undefined, v: number) => (u ? `${v.toFixed(v < 10 ? 2 : 0)} ${u}` : fmtMs(v));
  const ratio = opts.theirs.value === 0 ? Infinity : opts.ours.value / opts.theirs.value;
  const goal = opts.goal
    ? `  goal: ${opts.goal} ${opts.met === undefined ? "" : opts.met ? "(met)" : "(NOT met)"}`
    : "";
  console.log(
    `${opts.what}: ${opts.ours.label} ${unit(opts.ours.unit, opts.ours.value)} | ${opts.theirs.label} ${unit(opts.theirs.unit, opts.theirs.value)} | ratio ${ratio.toFixed(2)}×${goal}`,
  );
}

export function skipped(what: string, why: string): void {
  console.log(`${what}: skipped — ${why}`);
}
