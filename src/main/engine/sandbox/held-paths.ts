import { lstatSync, rmSync } from "node:fs";
import path from "node:path";
import type { ProtectedEntry } from "../policy/protected-paths.ts";

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * How the protected paths are handed to the sandbox. One that exists is mounted read-only as
 * itself. A missing folder is given as a path inside it, so the sandbox covers it with an empty
 * read-only folder (nothing can be created in it). A missing FILE cannot be held that way: the
 * sandbox would cover it with a `/dev/null` device, which git cannot read (`.git/commondir` there
 * stops every git command, `.gitmodules` breaks `git add -A`); such files are watched instead.
 */
export function heldPaths(entries: readonly ProtectedEntry[]): { denyWrite: string[]; watched: string[] } {
  const denyWrite = new Set<string>();
  const watched: string[] = [];
  for (const entry of entries) {
    if (exists(entry.path)) denyWrite.add(entry.path);
    else if (entry.kind === "folder") denyWrite.add(path.join(entry.path, ".lathe-protected"));
    else watched.push(entry.path);
  }
  return { denyWrite: [...denyWrite], watched };
}

/** Remove the watched files that now exist (the process made them); returns which. */
export function undoCreated(watched: readonly string[]): string[] {
  const created = watched.filter(exists);
  for (const file of created) rmSync(file, { recursive: true, force: true });
  return created;
}
