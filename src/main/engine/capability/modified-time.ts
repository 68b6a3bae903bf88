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
