import { constants, type Stats } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ResolvedPath } from "./fs-capability.ts";

/**
 * How new content takes the place of an existing file.
 *
 * - `rename`: a new file is written beside it and renamed over it (atomic: a reader sees the old
 *   content or the new, never half), given the old file's mode, owner and group.
 * - `in-place`: the file itself is rewritten. Not atomic, so only when a rename would quietly
 *   make it another file: it has other names (hard links, which would keep the old content), or
 *   its owner or group is one this process cannot give a new file (the file would change hands);
 *   or when it cannot work: the folder lets no new file be made in it.
 */
export type Replacement = "rename" | "in-place";

/** Whether this process can give a file it creates the owner and group of `stats`. */
function canKeepOwner(stats: Stats): boolean {
  const uid = process.geteuid?.();
  // No POSIX owners here (Windows): a renamed file keeps what matters.
  if (uid === undefined) return true;
  if (uid === 0) return true;
  if (stats.uid !== uid) return false;
  return stats.gid === process.getegid?.() || (process.getgroups?.() ?? []).includes(stats.gid);
}

/**
 * Whether this user may make a file in `folder`. An error other than a refusal says nothing about
 * that (EROFS, a folder gone): the write itself meets it and says so.
 */
async function mayCreateIn(folder: string): Promise<boolean> {
  try {
    await access(folder, constants.W_OK);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== "EACCES" && code !== "EPERM";
  }
}

/**
 * How to replace the existing file at `absolute` whose stats (taken when it was read) are
 * `stats`: in place when it has other names, when its owner could not be given to a new file, or
 * when its folder lets no new file be made there (a writable file in a read-only folder).
 */
export async function replacementFor(
  absolute: string,
  stats: Stats,
  mayCreate: (folder: string) => Promise<boolean> = mayCreateIn,
): Promise<Replacement> {
  if (stats.nlink > 1 || !canKeepOwner(stats)) return "in-place";
  return (await mayCreate(path.dirname(absolute))) ? "rename" : "in-place";
}

/**
 * Refuse to replace a write-protected file: one whose mode grants nobody write (`chmod a-w`, a
 * file a version control system keeps read-only until it is checked out), or one this user may
 * not write. Renaming a new file over it would succeed all the same (only the folder needs to be
 * writable), so without this check the protection would be bypassed silently.
 */
export async function refuseReadOnly(target: ResolvedPath, stats: Stats): Promise<void> {
  const mode = (stats.mode & 0o7777).toString(8).padStart(4, "0");
  const refuse = (why: string): never => {
    throw new ToolCallError(
      `${target.display} is read-only (mode ${mode}): ${why}, so it was left unchanged. Do not work around this; if the person wants it changed, they make it writable first (chmod u+w ${target.display}, or check it out in their version control), then call the tool again.`,
      "read_only_file",
    );
  };
  if ((stats.mode & 0o222) === 0) refuse("its permissions let nobody write it");
  try {
    await access(target.absolute, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") {
      const owner = stats.uid === process.geteuid?.() ? "" : ` (it belongs to user ${stats.uid})`;
      refuse(`its permissions do not let this user write it${owner}`);
    }
    // EROFS: the write itself says so (see write-failure.ts); ENOENT: the file went since it
    // was read, and the write makes it again, as it would have without this check.
    if (code !== "EROFS" && code !== "ENOENT") throw err;
  }
}
