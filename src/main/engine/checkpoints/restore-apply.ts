import { constants, type Stats } from "node:fs";
import { chmod, chown, lstat, mkdir, open, readFile, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import { replacementFor } from "../capability/file-replacement.ts";
import { tempNameFor } from "../capability/temp-name.ts";
import { rewriteOpenFile } from "../capability/verified-file.ts";
import { CheckpointError } from "../errors/checkpoint-error.ts";
import type { BlobStore } from "./blob-store.ts";
import type { CheckpointEntry, PathState } from "./checkpoint-store.ts";
import { diskState, type DiskState, type PlannedPath, type RestoreStep } from "./restore-plan.ts";
import { errorMessage } from "../errors/error-message.ts";

/** A person's answer for one conflicting path: overwrite their change, or keep the path as it is. */
type RestoreChoice = "overwrite" | "keep";

export interface RestoreOptions {
  /** Overwrite every conflict, and leave what cannot be restored as it is. */
  force?: boolean;
  /** Per path (as in the plan): "overwrite" its conflict, or "keep" it as it is now. */
  choices?: Readonly<Record<string, RestoreChoice>>;
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
): Promise<CheckpointEntry[]> {
  const entries: CheckpointEntry[] = [];
  for (const { planned, target, current } of steps) {
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
      before = { exists: true, hash: null };
    } else {
      before = { exists: true, hash: null };
      note = "it was a symbolic link or special file, which checkpoints do not keep";
    }
    // What the restore leaves, mode included: undoing it then sees a chmod made after it.
    const after: PathState = !target.exists
      ? { exists: false }
      : planned.type === "file"
        ? { exists: true, hash: target.hash, mode: restoredMode(target, current) }
        : { exists: true, hash: target.hash };
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
  failed: SkippedPath[];
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
 */
export async function applySteps(
  root: string,
  steps: readonly RestoreStep[],
  blobs: BlobStore,
): Promise<ApplyReport> {
  const report: ApplyReport = { skipped: [], failed: [] };
  const depth = (s: RestoreStep): number => s.planned.path.split("/").length;
  const recreate = steps
    .filter((s) => s.planned.type === "folder" && s.target.exists)
    .sort((a, b) => depth(a) - depth(b));
  const files = steps.filter((s) => s.planned.type === "file");
  const remove = steps
    .filter((s) => s.planned.type === "folder" && !s.target.exists)
    .sort((a, b) => depth(b) - depth(a));
  for (const step of [...recreate, ...files, ...remove]) {
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
