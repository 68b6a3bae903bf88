import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** Where a program runs from, or why it cannot run: the error codes a failed spawn would give. */
export type ProgramLookup = { file: string } | { code: "ENOENT" | "EACCES" };

/**
 * Whether `file` is a regular file, and whether this process may run it. A PATH folder this user
 * may not search (EACCES: `/root/.cargo/bin` for another user) or that cannot be reached (a
 * symlink loop, a name too long) is passed over as execvp passes it over, a denied one noted.
 */
function probe(file: string): "runs" | "denied" | "none" {
  let stats;
  try {
    // Most folders on PATH lack the program: asked not to throw for that, a miss costs a stat
    // rather than an exception.
    stats = statSync(file, { throwIfNoEntry: false });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EACCES" ? "denied" : "none";
  }
  if (!stats?.isFile()) return "none";
  try {
    accessSync(file, constants.X_OK);
    return "runs";
  } catch {
    return "denied";
  }
}

/** Whether `file` is a regular file this process may run. */
export function isRunnable(file: string): boolean {
  return probe(file) === "runs";
}

/**
 * Find `command` as execvp would: a name with a slash is taken as it is (from `cwd`), any other
 * is looked for in each folder of `PATH` in turn (a relative folder from `cwd`). The first
 * regular file that may be executed wins; EACCES when only files that may not be were found.
 * Only stats: a lookup starts no process.
 */
export function lookUpProgram(command: string, PATH: string, cwd: string): ProgramLookup {
  const candidates = command.includes("/")
    ? [path.resolve(cwd, command)]
    : PATH.split(path.delimiter)
        .filter((dir) => dir !== "")
        .map((dir) => path.resolve(cwd, dir, command));
  let denied = false;
  for (const file of candidates) {
    const found = probe(file);
    if (found === "runs") return { file };
    if (found === "denied") denied = true;
  }
  return { code: denied ? "EACCES" : "ENOENT" };
}
