/**
 * Where something sits in the source: positions, one more for every nested source (a decoded
 * backtick script, an `sh -c` string) at the place that holds it. Compared lexicographically,
 * keys give source order across nested sources.
 */
export type SortKey = readonly number[];

export function compareKeys(a: SortKey, b: SortKey): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = (a[i] as number) - (b[i] as number);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}
