import { statSync } from "node:fs";

/**
 * The modification time (ms since the epoch) of a canonical path the capability surface
 * produced (a walk entry, a resolved path); undefined when it vanished meanwhile.
 */
export function modifiedTime(absolute: string): number | undefined {
  return statSync(absolute, { throwIfNoEntry: false })?.mtimeMs;
}

/** Newest first, then by path: the order glob and grep list files in. */
export function newestFirst(
  a: { path: string; mtimeMs: number },
  b: { path: string; mtimeMs: number },
): number {
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The `k` newest items, newest first (in `newestFirst` order), without sorting them all: a heap
 * of the `k` best so far, whose root is the one the next better item replaces.
 */
export function newest<T extends { path: string; mtimeMs: number }>(items: readonly T[], k: number): T[] {
  if (k <= 0) return [];
  const heap: T[] = [];
  /** Whether a ranks below b (comes later in newest-first order): the root is the lowest. */
  const below = (a: T, b: T): boolean => newestFirst(a, b) > 0;
  const siftDown = (from: number): void => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let lowest = i;
      if (left < heap.length && below(heap[left] as T, heap[lowest] as T)) lowest = left;
      if (right < heap.length && below(heap[right] as T, heap[lowest] as T)) lowest = right;
      if (lowest === i) return;
      [heap[i], heap[lowest]] = [heap[lowest] as T, heap[i] as T];
      i = lowest;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!below(heap[i] as T, heap[parent] as T)) break;
        [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
        i = parent;
      }
    } else if (below(heap[0] as T, item)) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return heap.sort(newestFirst);
}
