import { unlinkSync } from "node:fs";

/**
 * The temporary files Lathe is writing at this moment beside a file it replaces (write's
 * `.name.lathe-….tmp`, a restore's `.name.lathe-restore-….tmp`). Each is renamed over its target
 * or removed when its write ends; a process that has to end before then (a second Ctrl-C, a
 * stop that did not wind down in time) removes them first with `removeFilesBeingWritten`, so
 * nothing Lathe writes for a moment is left in the person's folder.
 */
const beingWritten = new Set<string>();

/** Note `absolute` as being written until the returned function is called (once it is renamed or removed). */
export function noteFileBeingWritten(absolute: string): () => void {
  beingWritten.add(absolute);
  return () => {
    beingWritten.delete(absolute);
  };
}

/**
 * Remove every temporary file still being written, synchronously (the process ends on the next
 * line). One already renamed over its target is gone under that name: nothing is removed then.
 * Returns what could not be removed, with why, for the caller to say.
 */
export function removeFilesBeingWritten(): string[] {
  const problems: string[] = [];
  for (const absolute of beingWritten) {
    try {
      unlinkSync(absolute);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        problems.push(`${absolute}: ${(err as Error).message}`);
    }
  }
  beingWritten.clear();
  return problems;
}
