import { constants, type Stats } from "node:fs";
import { chmod, chown, lstat, mkdir, open, readdir, readFile, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import { replacementFor } from "../capability/file-replacement.ts";
import { tempNameFor } from "../capability/temp-name.ts";
import { noteFileBeingWritten } from "../temp/files-being-written.ts";
import { rewriteOpenFile } from "../capability/verified-file.ts";
import { CheckpointError } from "../errors/checkpoint-error.ts";
import type { BlobStore } from "./blob-store.ts";
import type { CheckpointEntry, PathState } from "./checkpoint-store.ts";
import { diskState, type DiskState, type PlannedPath, type RestoreStep } from "./restore-plan.ts";
import { errorMessage } from "../errors/error-message.ts";
import { NOT_REACHED } from "./not-reached.ts";

/** A person's answer for one conflicting path: overwrite their change, or keep the path as it is. */
type RestoreChoice = "overwrite" | "keep";

export interface RestoreOptions {
  /** Overwrite every conflict, and leave what cannot be restored as it is. */
  force?: boolean;
  /** Per path (as in the plan): "overwrite" its conflict, or "keep" it as it is now. */
  choices?: Readonly<Record<string, RestoreChoice>>;
  /**
   * Stops the restore (Ctrl-C): before anything is written, nothing is; once writing, between
   * two paths, so no file is left half written, and the paths not reached are reported.
   */
  signal?: AbortSignal;
}

/** Why `signal` stopped the work, as a person reads it ("interrupted (SIGINT)"), or undefined while it has not. */
export function stopReason(signal: AbortSignal | undefined): string | undefined {
  if (!signal?.aborted) return undefined;
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "stopped");
}

/** A path a restore left as it was, and why. */
export interface SkippedPath {
  path: string;
  reason: string;
}

interface RestoreDecision {
  /** Steps to apply. */
  run: RestoreStep[];
  skipped: SkippedPath[];
  /** Paths that need a decision (force or a choice) before anything is restored. */
  blocked: PlannedPath[];
}

/** Sort the plan's steps into those to apply, those left alone, and those that need a decision. */
export function decide(steps: readonly RestoreStep[], options: RestoreOptions): RestoreDecision {
  const decision: RestoreDecision = { run: [], skipped: [], blocked: [] };
  for (const step of steps) {
    const { planned } = step;
    if (planned.action === "none" && planned.unavailable === undefined) continue;
    const choice = options.choices?.[planned.path];
    if (choice === "keep") {
      decision.skipped.push({ path: planned.path, reason: "kept as it is, as chosen" });
    } else if (planned.unavailable !== undefined) {
      if (options.force) decision.skipped.push({ path: planned.path, reason: planned.unavailable });
      else decision.blocked.push(planned);
    } else if (planned.conflict !== undefined && !options.force && choice !== "overwrite") {
      decision.blocked.push(planned);
    } else {
      decision.run.push(step);
    }
  }
  return decision;
}

function sameDisk(a: DiskState, b: DiskState): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind !== "file" || (b.kind === "file" && a.hash === b.hash && a.mode === b.mode);
}

/** The permission bits a restored file gets: its recorded ones, else those it has now, else 644. */
function restoredMode(target: PathState, current: DiskState): number {
  return (target.exists ? target.mode : undefined) ?? (current.kind === "file" ? current.mode : 0o644);
}

/**
 * Keep what every path to be restored holds now, as the entries of the checkpoint that undoes
 * the restore (a forced overwrite of a person's change loses nothing). Throws, having changed
 * nothing, when a path changed since the plan was made.
 */
export async function captureCurrent(
  root: string,
  steps: readonly RestoreStep[],
  blobs: BlobStore,
  signal?: AbortSignal,
): Promise<CheckpointEntry[]> {
  const entries: CheckpointEntry[] = [];
  for (const { planned, target, current } of steps) {
    const stopped = stopReason(signal);
    if (stopped !== undefined) throw new CheckpointError(`Stopped (${stopped}) before anything was changed.`);
    const absolute = path.join(root, planned.path);
    const now = await diskState(absolute);
    if (!sameDisk(now, current)) {
      throw new CheckpointError(
        `${planned.path} changed while the restore was being prepared; nothing was restored. Preview the restore again.`,
      );
    }
    let before: PathState;
    let note: string | undefined;
    if (now.kind === "file") {
      const bytes = await readFile(absolute);
      before = { exists: true, hash: await blobs.put(bytes), mode: now.mode };
    } else if (now.kind === "absent") {
      before = { exists: false };
    } else if (now.kind === "folder") {
      // In a file's entry, a folder a change made of the file (undoing the restore brings it back).
      before =
        planned.type === "file" ? { exists: true, hash: null, folder: true } : { exists: true, hash: null };
    } else {
      before = { exists: true, hash: null };
      note = "it was a symbolic link or special file, which checkpoints do not keep";
    }
    // What the restore leaves, mode included: undoing it then sees a chmod made after it.
    const after: PathState = !target.exists
      ? { exists: false }
      : planned.type === "file" && !target.folder
        ? { exists: true, hash: target.hash, mode: restoredMode(target, current) }
        : target;
    entries.push({ path: planned.path, type: planned.type, before, after, ...(note ? { note } : {}) });
  }
  return entries;
}

/** Refuse when a folder on the way to `dir` (inside `root`) is a symlink (a missing part is none). */
async function requireRealFolder(root: string, dir: string): Promise<void> {
  if ((await canonicalize(dir)) !== dir)
    throw new CheckpointError(
      `A folder on the way to ${path.relative(root, dir) || "."} is a symbolic link; Lathe restores only into real folders of the workspace.`,
    );
}

/** Make sure no folder on the way to `dir` (inside `root`) is a symlink, then create what is missing. */
async function prepareFolder(root: string, dir: string): Promise<void> {
  await requireRealFolder(root, dir);
  await mkdir(dir, { recursive: true });
  await requireRealFolder(root, dir);
}

/**
 * Rewrite the regular file at `absolute` in place (see replacementFor: it has other names, or an
 * owner this process cannot give a new file), so it stays the same file; false when there is no
 * such file there to rewrite.
 */
async function rewriteInPlace(
  absolute: string,
  bytes: Uint8Array,
  mode: number,
  current: Stats,
): Promise<boolean> {
  let handle;
  try {
    handle = await open(absolute, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (["ENOENT", "ELOOP", "ENXIO"].includes((err as NodeJS.ErrnoException).code ?? "")) return false;
    throw err;
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== current.ino || opened.dev !== current.dev) return false;
    await rewriteOpenFile(handle, bytes, absolute);
    await handle.chmod(mode);
    return true;
  } finally {
    await handle.close();
  }
}

async function writeFileAt(root: string, absolute: string, bytes: Uint8Array, mode: number): Promise<void> {
  const dir = path.dirname(absolute);
  await prepareFolder(root, dir);
  // The file there now stays the same file, as write and edit keep it: its other names see the
  // restored content, and its owner and group are kept.
  const current = await lstat(absolute).catch(() => undefined);
  const existing = current?.isFile() ? current : undefined;
  if (
    existing &&
    (await replacementFor(absolute, existing)) === "in-place" &&
    (await rewriteInPlace(absolute, bytes, mode, existing))
  )
    return;
  const temp = path.join(dir, tempNameFor(path.basename(absolute), "lathe-restore"));
  // Noted before it exists: a process ending while it is written removes it (a second Ctrl-C).
  const written = noteFileBeingWritten(temp);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (err) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    try {
      if (existing) await chown(temp, existing.uid, existing.gid);
      await chmod(temp, mode);
      await rename(temp, absolute);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  } finally {
    written();
  }
}

/**
 * Remove the folder at `absolute` and the folders in it, all of which must be empty of anything
 * else (a restore may have made some, and an undone one left them); refuses, removing no file,
 * when one holds a file or a link.
 */
async function removeEmptyFolders(absolute: string): Promise<void> {
  for (const entry of await readdir(absolute, { withFileTypes: true })) {
    if (!entry.isDirectory()) {
      throw new CheckpointError(
        `it is a folder that holds what the checkpoint did not create (${entry.name} in it); move that away, then restore again`,
      );
    }
    await removeEmptyFolders(path.join(absolute, entry.name));
  }
  await rmdir(absolute);
}

async function removeFile(absolute: string): Promise<void> {
  try {
    await unlink(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** What applying a restore did not do: paths left alone (folders not empty) and paths that failed. */
interface ApplyReport {
  skipped: SkippedPath[];
  /** Paths that could not be written, and those a stop left unreached (with NOT_REACHED). */
  failed: SkippedPath[];
  /** Why the restore stopped before its last path, if it did. */
  stopped?: string;
}

async function applyStep(
  root: string,
  step: RestoreStep,
  blobs: BlobStore,
  report: ApplyReport,
): Promise<void> {
  const { planned, target, current } = step;
  const absolute = path.join(root, planned.path);
  if (planned.type === "folder") {
    if (target.exists) {
      await prepareFolder(root, absolute);
      return;
    }
    try {
      // Removed only where it was made: not through a folder swapped for a symlink since the plan.
      await requireRealFolder(root, path.dirname(absolute));
      await rmdir(absolute);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") {
        report.skipped.push({
          path: planned.path,
          reason: "the folder is not empty: it holds files the checkpoint did not create",
        });
      } else if (code !== "ENOENT") throw err;
    }
    return;
  }
  // Deleted or replaced only where it was: not through a folder swapped for a symlink since the plan.
  await requireRealFolder(root, path.dirname(absolute));
  if (target.exists && target.folder) {
    // A file (or a link) a change made of a folder: the folder comes back, its files after it.
    if (current.kind !== "absent") await removeFile(absolute);
    await mkdir(absolute);
    return;
  }
  if (current.kind === "folder") {
    // A folder a change made of a file: what the change put in it is gone by now.
    await removeEmptyFolders(absolute);
  }
  if (!target.exists) {
    await removeFile(absolute);
    return;
  }
  const bytes = target.hash === null ? undefined : await blobs.read(target.hash);
  if (!bytes) throw new CheckpointError("its previous content is missing or damaged in the checkpoint store");
  const mode = restoredMode(target, current);
  if (current.kind === "link") await removeFile(absolute);
  await writeFileAt(root, absolute, bytes, mode);
}

/**
 * Bring every step's path back to its target: folders to recreate first (outermost first), then
 * files, then folders the change created (innermost first, only when empty). A path that fails
 * is reported and the others still go on, so the checkpoint that undoes the restore stays true.
 * `signal` stops it between two paths: those not reached are reported as failed (NOT_REACHED).
 */
export async function applySteps(
  root: string,
  steps: readonly RestoreStep[],
  blobs: BlobStore,
  signal?: AbortSignal,
): Promise<ApplyReport> {
  const report: ApplyReport = { skipped: [], failed: [] };
  const depth = (s: RestoreStep): number => s.planned.path.split("/").length;
  // A file's entry whose path a change turned into a folder (or back) goes with the folders:
  // a folder that comes back before the files to go in it, one made of a file after its own
  // files and folders are gone.
  const folderBack = (s: RestoreStep): boolean => s.target.exists && s.target.folder === true;
  const folderGoes = (s: RestoreStep): boolean => s.planned.type === "file" && s.current.kind === "folder";
  const recreate = steps
    .filter((s) => (s.planned.type === "folder" && s.target.exists) || folderBack(s))
    .sort((a, b) => depth(a) - depth(b));
  const files = steps.filter((s) => s.planned.type === "file" && !folderBack(s) && !folderGoes(s));
  const remove = steps
    .filter((s) => (s.planned.type === "folder" && !s.target.exists) || folderGoes(s))
    .sort((a, b) => depth(b) - depth(a));
  for (const step of [...recreate, ...files, ...remove]) {
    report.stopped ??= stopReason(signal);
    if (report.stopped !== undefined) {
      report.failed.push({ path: step.planned.path, reason: NOT_REACHED });
      continue;
    }
    try {
      await applyStep(root, step, blobs, report);
    } catch (err) {
      report.failed.push({
        path: step.planned.path,
        reason: errorMessage(err),
      });
    }
  }
  return report;
}
