/**
 * The edit distance between two words: insertions, deletions, substitutions and swaps of two
 * neighbouring letters each count one (optimal string alignment), so `requried` is one slip
 * from `required`.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** How many slips a word of this length may hold and still be taken for a known one. */
function tolerance(length: number): number {
  if (length <= 3) return 1;
  return length <= 7 ? 2 : 3;
}

/**
 * The known word `word` was probably meant to be (letter case ignored), or undefined when none
 * is close enough to be a slip. Ties go to the earlier candidate.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = tolerance(word.length) + 1;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
