import { lstat, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { processExists } from "../spawner/process-exists.ts";
import { ownIdentity, processStartTime, type ProcessIdentity } from "./process-start.ts";
import { ownerOfTempName } from "./temp-folder-name.ts";

/** What a sweep did: the folders it removed, and those it meant to remove but could not. */
export interface TempSweepResult {
  removed: string[];
  failed: { path: string; error: unknown }[];
}

/**
 * Remove from `dir` (the OS temp folder) the temp folders of Lathe processes that are gone: a
 * run killed with -9, a crash or a power cut never removes its own (owned-temp-dir.ts). Only
 * what is provably such a folder goes: a name of the exact form (temp-folder-name.ts), a real
 * directory (lstat: a symlink is never followed, nor removed), owned by this user, whose
 * recorded owner no longer exists. Everything else stays: a live owner, another user's folder,
 * an owner that cannot be established (an older Lathe's name, another pid namespace, no /proc).
 * Removal never follows a symlink inside the folder either.
 *
 * With nothing of this form in `dir`, it costs one readdir.
 */
export async function sweepStaleTempFolders(dir: string = os.tmpdir()): Promise<TempSweepResult> {
  const result: TempSweepResult = { removed: [], failed: [] };
  // Without uids (Windows) "owned by this user" cannot be checked: nothing is swept.
  const uid = process.getuid?.();
  if (uid === undefined) return result;
  const self = ownIdentity();
  for (const name of await readdir(dir)) {
    if (!name.startsWith("lathe-")) continue;
    const owner = ownerOfTempName(name);
    if (owner === undefined) continue;
    const folder = path.join(dir, name);
    try {
      if (!ownerIsGone(owner, self)) continue;
      const info = await lstat(folder);
      if (!info.isDirectory() || info.uid !== uid) continue;
      // rm looks at each entry with lstat: a symlink inside is removed, never what it points to.
      await rm(folder, { recursive: true, force: true });
      result.removed.push(folder);
    } catch (error) {
      // Gone meanwhile (another run swept it): nothing to do.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      result.failed.push({ path: folder, error });
    }
  }
  return result;
}

/**
 * Whether the process that made a folder is provably gone. On Linux the folder records its
 * owner's pid, start time and pid namespace: the owner is gone when no process has that pid, or
 * the one that has it started at another time (the pid was reused). Elsewhere only "no process
 * has that pid" proves it (a reused pid keeps the folder). Whatever cannot be established keeps it.
 */
function ownerIsGone(owner: ProcessIdentity, self: ProcessIdentity): boolean {
  if (process.platform === "linux") {
    if (owner.start === 0 || owner.namespace === 0 || self.namespace === 0) return false;
    // Another pid namespace (a container sharing this temp folder): its pids are not ours to look up.
    if (owner.namespace !== self.namespace) return false;
    if (!processExists(owner.pid)) return true;
    const start = processStartTime(owner.pid);
    return start !== undefined && start !== owner.start;
  }
  return !processExists(owner.pid);
}
