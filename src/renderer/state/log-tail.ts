/**
 * How many lines fell off the top of a log's tail between two reads: `after` starts with what is
 * left of `before` once that many of its first lines are gone (and may go on with new lines).
 * The fewest that fit; all of `before` when nothing of it is left (the log was cleared, or more
 * lines came than the tail holds).
 */
export function droppedFromTop(before: readonly string[], after: readonly string[]): number {
  for (let dropped = 0; dropped < before.length; dropped++) {
    const kept = before.length - dropped;
    if (kept > after.length) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = before[dropped + i] === after[i];
    if (same) return dropped;
  }
  return before.length;
}
