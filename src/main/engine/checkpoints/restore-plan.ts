import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { canonicalize } from "../capability/canonical-path.ts";
import { homeRelative, type HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { sha256Of, type BlobStore } from "./blob-store.ts";
import type { Checkpoint, EntryType, PathState } from "./checkpoint-store.ts";

/**
 * What restoring does to a path: `restore` puts back its previous content, `recreate` brings
 * back a file or folder that was deleted, `delete` removes one the change created, `none`: it
 * already is as it was.
 */
type PathAction = "restore" | "recreate" | "delete" | "none";

export interface PlannedPath {
  /** POSIX path relative to the workspace root. */
  path: string;
  type: EntryType;
  action: PathAction;
  /**
   * Set when the path changed since the checkpoint (the person, another program or a later
   * call changed it): restoring would overwrite that change, so it needs `force` or a choice.
   */
  conflict?: string;
  /** With `conflict`: the change since is of its mode alone (a chmod); its content is as it was left. */
  modeOnly?: boolean;
  /** Set when the path cannot be restored at all, and why (its content was not kept, a folder is in the way, …). */
  unavailable?: string;
}

/** A preview: what a restore would do, path by path, before anything is touched. */
export interface RestorePlan {
  /** The checkpoints whose changes would be undone, newest first. */
  checkpoints: number[];
  paths: PlannedPath[];
}

/** What a path holds on disk now. */
export type DiskState =
  | { kind: "absent" }
  | { kind: "file"; hash: string; mode: number }
  | { kind: "folder" }
  | { kind: "link" }
  | { kind: "other" };

/** One path of a plan with what applying it needs. */
export interface RestoreStep {
  planned: PlannedPath;
  /** The state to bring back. */
  target: PathState;
  /** What the path held when the plan was made (applying checks it still does). */
  current: DiskState;
}

export interface PreparedRestore {
  plan: RestorePlan;
  steps: RestoreStep[];
}

/** Paths Lathe never writes when restoring: git's data and Lathe's own settings. */
const PROTECTED = [".git", ".lathe"];

/** Whether a stored path is a plain relative path inside the root (no "..", not absolute, not protected). */
function isRestorablePath(relative: string): boolean {
  if (relative === "" || relative.startsWith("/") || relative.includes("\0") || relative.includes("\\"))
    return false;
  const parts = relative.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return false;
  return !PROTECTED.includes(parts[0] as string);
}

/** Read what a path holds now (symlinks are not followed). */
export async function diskState(absolute: string): Promise<DiskState> {
  let stats;
  try {
    stats = await lstat(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    throw err;
  }
  if (stats.isSymbolicLink()) return { kind: "link" };
  if (stats.isDirectory()) return { kind: "folder" };
  if (!stats.isFile()) return { kind: "other" };
  return { kind: "file", hash: sha256Of(await readFile(absolute)), mode: stats.mode & 0o7777 };
}

/**
 * Whether what is on disk is exactly `state`: its content, and its permission bits when the state
 * recorded them (a state whose content was not hashed never matches).
 */
function holds(current: DiskState, state: PathState, type: EntryType): boolean {
  if (!state.exists) return current.kind === "absent";
  if (type === "folder" || state.folder) return current.kind === "folder";
  return (
    current.kind === "file" &&
    state.hash !== null &&
    current.hash === state.hash &&
    (state.mode === undefined || current.mode === state.mode)
  );
}

/** Permission bits as `chmod` takes them: 644, 755, 4710. */
function octal(mode: number): string {
  return mode.toString(8).padStart(3, "0");
}

/** Whether the file holds what `expected` says but with other permission bits: a chmod alone. */
function modeChangedOnly(current: DiskState, expected: PathState): boolean {
  return (
    modeChanged(current, expected) &&
    current.kind === "file" &&
    expected.exists &&
    current.hash === expected.hash
  );
}

/** Whether the file's permission bits differ from those `expected` recorded. */
function modeChanged(current: DiskState, expected: PathState): boolean {
  return (
    current.kind === "file" &&
    expected.exists &&
    expected.mode !== undefined &&
    current.mode !== expected.mode
  );
}

/**
 * How a file differs from what the newest undone checkpoint left (`expected`, left by `leftBy`):
 * its content, its permission bits (when the checkpoint recorded them), or both.
 */
function describeConflict(current: DiskState, expected: PathState, leftBy: string): string {
  if (
    current.kind === "file" &&
    expected.exists &&
    expected.mode !== undefined &&
    modeChanged(current, expected)
  ) {
    const modes = `${octal(current.mode)} now, ${octal(expected.mode)} when ${leftBy} left it`;
    return modeChangedOnly(current, expected)
      ? `its mode was changed since (${modes})`
      : `it was changed since, its mode too (${modes})`;
  }
  if (expected.exists && expected.folder && current.kind === "file")
    return `it was a folder when ${leftBy} left it, and was replaced by a file since`;
  return `it ${describeChange(current)} since`;
}

function describeChange(current: DiskState): string {
  switch (current.kind) {
    case "absent":
      return "was deleted";
    case "link":
      return "was replaced by a symbolic link";
    case "folder":
      return "was replaced by a folder";
    case "other":
      return "was replaced by something that is not a file";
    case "file":
      return "was changed";
  }
}

interface Combined {
  /** The oldest undone entry's type (made "file" when the entries' types differ, see asFileEntry). */
  type: EntryType;
  /** The newest undone entry's type. */
  newestType: EntryType;
  /** What the newest undone checkpoint left: what the path should hold now. */
  expected: PathState;
  /** Who left it so, for messages: "write", "bash", "the restore". */
  leftBy: string;
  /** What the oldest undone checkpoint found: what restoring brings back. */
  target: PathState;
  note: string | undefined;
}

/**
 * A path whose undone entries disagree on its type (a folder one call made, that a later one
 * turned into a file, or the reverse) is restored as a file's entry whose folder sides are
 * marked, as one call's change of type is: the restore then removes or brings back either.
 */
function asFileEntry(c: Combined): void {
  const asFolder = (state: PathState): PathState =>
    state.exists ? { exists: true, hash: null, folder: true } : state;
  if (c.newestType === "folder") c.expected = asFolder(c.expected);
  if (c.type === "folder") c.target = asFolder(c.target);
  c.type = "file";
}

/**
 * Why a restorable path cannot be touched now, if so: a folder on the way to it is a symbolic
 * link (restoring through it would write or delete a file outside the workspace's own folders,
 * in `~/.ssh` say), or Lathe hides it from its tools (`sandbox.denyRead`, `$LATHE_HOME`), by its
 * name or as a hard link to a hidden file. Decided before the path is read, so none is read either.
 */
async function outOfReach(absolute: string, hidden: HiddenPathSet): Promise<string | undefined> {
  const folder = path.dirname(absolute);
  if ((await canonicalize(folder)) !== folder)
    return "a folder on the way to it is now a symbolic link; Lathe restores only into real folders of the workspace";
  const found = hidden.find(absolute);
  if (found !== undefined) {
    return found.hiddenBy === "lathe-home"
      ? `it is Lathe's own data (in ${homeRelative(found.entry)}), which no tool or restore may write`
      : `it is hidden from Lathe's tools: ${homeRelative(found.entry)} is in "sandbox.denyRead", so no tool or restore may read or write it`;
  }
  // A hard link is the hidden file under another name (`ln ~/.ssh/id_ed25519 notes.txt`, made
  // since the call): reading it would copy the key into the store, and undoing the restore would
  // write it out as a plain file of the workspace.
  const stats = await lstat(absolute).catch(() => undefined);
  const linked = stats && hidden.linkedHidden(stats);
  if (linked === undefined) return undefined;
  return linked.hiddenBy === "lathe-home"
    ? `it is now another name (a hard link) of Lathe's own data (in ${homeRelative(linked.entry)}), which no restore may read or replace`
    : `it is now another name (a hard link) of a file hidden from Lathe's tools: ${homeRelative(linked.entry)} is in "sandbox.denyRead", so no restore may read or replace it; remove the link first`;
}

/**
 * The folder on the way to `relative` that is something else now (a file, a link), unless the
 * restore makes it a folder again (`becomesFolder`): the path cannot be brought back under it.
 * Undefined when every folder on the way is one, or is missing (the restore makes it).
 */
async function fileInTheWay(
  root: string,
  relative: string,
  becomesFolder: (prefix: string) => boolean,
): Promise<string | undefined> {
  const parts = relative.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const stats = await lstat(path.join(root, prefix)).catch(() => undefined);
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) continue;
    return becomesFolder(prefix) ? undefined : prefix;
  }
  return undefined;
}

/** How many stray names a message lists before "and N more". */
const STRAYS_SHOWN = 3;

/**
 * What the folder at `absolute` (the path `relative`, which a change turned from a file into a
 * folder) holds besides folders that the restore would not remove (`goes`: the paths it
 * deletes), as a list for a message, or undefined when it holds nothing else: the folder (and
 * any empty folder in it, such as one a restore made) can then go and the file come back.
 */
async function straysIn(
  absolute: string,
  relative: string,
  goes: ReadonlySet<string>,
): Promise<string | undefined> {
  const strays = (await readdir(absolute, { recursive: true, withFileTypes: true }))
    .filter((entry) => !entry.isDirectory())
    .map((entry) => `${relative}/${path.relative(absolute, path.join(entry.parentPath, entry.name))}`)
    .filter((name) => !goes.has(name))
    .sort();
  if (strays.length === 0) return undefined;
  const more = strays.length > STRAYS_SHOWN ? `, and ${strays.length - STRAYS_SHOWN} more` : "";
  return `${strays.slice(0, STRAYS_SHOWN).join(", ")}${more}`;
}

/**
 * Plan undoing `undo` (checkpoints, newest first): for each path, the oldest checkpoint's
 * previous state is what comes back, and the newest one's resulting state is what the path must
 * still hold; anything else is a conflict (named after the `later` checkpoint that touched it
 * when there is one: of these sessions, or of another session in the folder, which is named). A path out of reach (see outOfReach) is unavailable. Reads the disk;
 * changes nothing.
 */
export async function planRestore(options: {
  root: string;
  undo: readonly Checkpoint[];
  later: readonly Checkpoint[];
  blobs: BlobStore;
  /** What Lathe hides from its tools: never read, written or deleted by a restore. */
  hidden: HiddenPathSet;
}): Promise<PreparedRestore> {
  const { root, undo, later, blobs, hidden } = options;
  const combined = new Map<string, Combined>();
  for (const checkpoint of undo) {
    for (const entry of checkpoint.entries) {
      const seen = combined.get(entry.path);
      if (seen) {
        seen.target = entry.before;
        seen.type = entry.type;
        seen.note = entry.note;
      } else {
        combined.set(entry.path, {
          type: entry.type,
          newestType: entry.type,
          expected: entry.after,
          leftBy: checkpoint.kind === "tool" ? checkpoint.tool : `the ${checkpoint.kind}`,
          target: entry.before,
          note: entry.note,
        });
      }
    }
  }
  for (const c of combined.values()) if (c.type !== c.newestType) asFileEntry(c);
  // The sessions whose changes are undone: a later checkpoint of another is named with its session.
  const undoneIn = new Set(undo.map((c) => c.sessionId));
  // What the restore deletes: a folder a change made of a file may go when it holds nothing else.
  const goes = new Set([...combined].filter(([, c]) => !c.target.exists).map(([relative]) => relative));
  // What the restore makes a folder again (before the files that go in it).
  const becomesFolder = new Set(
    [...combined]
      .filter(([, c]) => c.target.exists && (c.type === "folder" || c.target.folder === true))
      .map(([relative]) => relative),
  );
  const steps: RestoreStep[] = [];
  for (const [relative, { type, expected, leftBy, target, note }] of [...combined].sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    const planned: PlannedPath = { path: relative, type, action: "none" };
    if (!isRestorablePath(relative)) {
      planned.unavailable =
        "it is not a path Lathe restores (outside the workspace, or under .git or .lathe)";
      steps.push({ planned, target, current: { kind: "absent" } });
      continue;
    }
    const unreachable = await outOfReach(path.join(root, relative), hidden);
    if (unreachable !== undefined) {
      planned.unavailable = unreachable;
      steps.push({ planned, target, current: { kind: "absent" } });
      continue;
    }
    const current = await diskState(path.join(root, relative));
    steps.push({ planned, target, current });
    if (holds(current, target, type)) continue;
    const blocker =
      target.exists && current.kind === "absent"
        ? await fileInTheWay(root, relative, (prefix) => becomesFolder.has(prefix))
        : undefined;
    if (blocker !== undefined) {
      planned.action = "recreate";
      planned.unavailable = `${blocker} is a file now, where a folder on the way to it was; move that file away first`;
      continue;
    }
    if (type === "folder") {
      if (!target.exists) planned.action = current.kind === "folder" ? "delete" : "none";
      else if (current.kind === "absent") planned.action = "recreate";
      else
        planned.unavailable =
          "the folder is to come back, but something else is in its place; move it away first";
      continue;
    }
    planned.action = !target.exists ? "delete" : current.kind === "absent" ? "recreate" : "restore";
    // A change that turned a file into a folder (or back): the folder side has no content.
    const folderBack = target.exists && target.folder === true;
    const becameFolder = expected.exists && expected.folder === true;
    const strays =
      current.kind === "folder" && becameFolder
        ? await straysIn(path.join(root, relative), relative, goes)
        : undefined;
    if (target.exists && target.hash === null && !folderBack) {
      planned.unavailable = note ?? "its previous content was not kept";
    } else if (target.exists && target.hash !== null && !(await blobs.intact(target.hash))) {
      planned.unavailable =
        "its previous content is missing or damaged in the checkpoint store (removed or changed since it was kept), so it cannot be brought back";
    } else if ((current.kind === "folder" && !becameFolder) || current.kind === "other") {
      planned.unavailable = `it ${describeChange(current)} since; move that away first`;
    } else if (strays !== undefined) {
      planned.unavailable = `it is now a folder holding what the change did not create (${strays}); move that away first`;
    } else if (!holds(current, expected, type)) {
      const toucher = [...later].reverse().find((c) => c.entries.some((e) => e.path === relative));
      const of = toucher && !undoneIn.has(toucher.sessionId) ? ` of session ${toucher.sessionId}` : "";
      const by = toucher
        ? `by checkpoint ${toucher.id} (${toucher.tool})${of}`
        : "outside this session's tools (by you or another program)";
      planned.conflict =
        expected.exists && expected.hash === null
          ? `Lathe cannot tell whether it changed since: its content after the change was not kept`
          : current.kind === "link" && !toucher
            ? // The scan around a command does not see links: the call may well have made it.
              `it is a symbolic link now, which checkpoints do not track, so Lathe cannot tell whether ${leftBy.startsWith("the ") ? leftBy : `the ${leftBy} call`} or something else made it`
            : `${describeConflict(current, expected, leftBy)}, ${by}`;
      if (modeChangedOnly(current, expected)) planned.modeOnly = true;
    }
  }
  return { plan: { checkpoints: undo.map((c) => c.id), paths: steps.map((s) => s.planned) }, steps };
}
