import { lstat } from "node:fs/promises";
import path from "node:path";
import { isWithin } from "../capability/canonical-path.ts";
import { sha256Of, type BlobStore } from "./blob-store.ts";
import { aboveLimit, formatBytes, type CheckpointLimits } from "./checkpoint-limits.ts";
import type { CheckpointEntry, EntryType, PathState } from "./checkpoint-store.ts";
import type { FileCheckpoint, KeptContent } from "./file-checkpoint.ts";
import type { IndexedPath, IndexSnapshot, ScanResult } from "./workspace-index.ts";

/** One call's checkpoint in the making: what it changed, once the call has ended. */
export interface CallJournal {
  /** For tools that report their changes (write, edit); undefined for the others. */
  readonly files: FileCheckpoint | undefined;
  /** The entries of every path the call changed (empty: nothing to record). */
  entries(): Promise<CheckpointEntry[]>;
}

/** The POSIX path of `absolute` relative to `root`, or undefined outside it. */
function relativeInside(root: string, absolute: string): string | undefined {
  if (absolute === root || !isWithin(root, absolute)) return undefined;
  return absolute
    .slice(root.length + 1)
    .split(path.sep)
    .join("/");
}

/** Whether a path was left as it was: the same content and, when both are known, the same mode. */
export function sameState(a: PathState, b: PathState): boolean {
  if (!a.exists || !b.exists) return a.exists === b.exists;
  const sameMode = a.mode === undefined || b.mode === undefined || a.mode === b.mode;
  return a.hash !== null && a.hash === b.hash && sameMode;
}

/** The folders between `root` and `absolute`'s folder that do not exist yet, outermost first. */
async function missingFolders(root: string, absolute: string): Promise<string[]> {
  const missing: string[] = [];
  let dir = path.dirname(absolute);
  while (dir !== root && isWithin(root, dir)) {
    try {
      await lstat(dir);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
    }
    missing.unshift(dir);
    dir = path.dirname(dir);
  }
  return missing;
}

interface Reported {
  before: PathState;
  after?: PathState;
  folders: string[];
}

/**
 * The journal of a tool that reports its own changes: the content it replaces goes to the blob
 * store before the change (the first report of a path wins, so a call that changes a file twice
 * restores to the state before the call), and the new content's hash after it.
 */
export class ReportedChanges implements CallJournal, FileCheckpoint {
  private readonly root: string;
  private readonly blobs: BlobStore;
  private readonly reported = new Map<string, Reported>();

  constructor(root: string, blobs: BlobStore) {
    this.root = root;
    this.blobs = blobs;
  }

  get files(): FileCheckpoint {
    return this;
  }

  async keep(absolute: string, current: KeptContent | null): Promise<void> {
    const relative = relativeInside(this.root, absolute);
    if (relative === undefined || this.reported.has(relative)) return;
    if (current) {
      const hash = current.renamedOver
        ? await this.blobs.keepFile(
            absolute,
            current.bytes,
            current.sha256 ?? sha256Of(current.bytes),
            current.renamedOver,
          )
        : await this.blobs.put(current.bytes, current.sha256);
      const before: PathState =
        current.mode === undefined ? { exists: true, hash } : { exists: true, hash, mode: current.mode };
      this.reported.set(relative, { before, folders: [] });
    } else {
      const folders = (await missingFolders(this.root, absolute)).map(
        (dir) => relativeInside(this.root, dir) as string,
      );
      this.reported.set(relative, { before: { exists: false }, folders });
    }
  }

  changed(absolute: string, sha256: string | null, mode?: number): void {
    const relative = relativeInside(this.root, absolute);
    if (relative === undefined) return;
    const entry = this.reported.get(relative);
    if (!entry)
      throw new Error(`checkpoint: ${relative} changed without its previous content being kept first`);
    entry.after =
      sha256 === null
        ? { exists: false }
        : mode === undefined
          ? { exists: true, hash: sha256 }
          : { exists: true, hash: sha256, mode };
  }

  async entries(): Promise<CheckpointEntry[]> {
    const out: CheckpointEntry[] = [];
    const folders = new Set<string>();
    for (const [relative, { before, after, folders: created }] of this.reported) {
      // Kept, but never replaced (the write failed): a blob hard-linked to the file would change
      // with it from now on, so it becomes a copy of its own.
      if (!after && before.exists && before.hash !== null) await this.blobs.detach(before.hash);
      if (!after || sameState(before, after)) continue;
      out.push({ path: relative, type: "file", before, after });
      for (const folder of created) folders.add(folder);
    }
    for (const folder of folders) {
      out.push({
        path: folder,
        type: "folder",
        before: { exists: false },
        after: { exists: true, hash: null },
      });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/** One side of an entry of `type`: a file's entry marks a side where the path was a folder. */
function stateOf(indexed: IndexedPath | undefined, type: EntryType): PathState {
  if (!indexed) return { exists: false };
  if (indexed.type === "file") return { exists: true, hash: indexed.hash, mode: indexed.mode };
  return type === "file" ? { exists: true, hash: null, folder: true } : { exists: true, hash: null };
}

/**
 * The journal of a command (bash): the workspace index was brought up to date before the
 * command ran, so every file's previous content is kept; afterwards a second scan finds what
 * the command created, changed or deleted.
 */
export class ScannedChanges implements CallJournal {
  readonly files = undefined;
  private readonly before: IndexSnapshot;
  private readonly rescan: (previous: IndexSnapshot) => Promise<ScanResult>;
  private readonly limits: CheckpointLimits;

  constructor(
    before: IndexSnapshot,
    rescan: (previous: IndexSnapshot) => Promise<ScanResult>,
    limits: CheckpointLimits,
  ) {
    this.before = before;
    this.rescan = rescan;
    this.limits = limits;
  }

  async entries(): Promise<CheckpointEntry[]> {
    const { snapshot, changed } = await this.rescan(this.before);
    const out: CheckpointEntry[] = [];
    for (const relative of changed) {
      const old = this.before.get(relative);
      const now = snapshot.get(relative);
      // A folder that went away comes back with the files restored into it.
      if (old?.type === "folder" && !now) continue;
      if (old?.type === "folder" && now?.type === "folder") continue;
      const type = (now ?? old)?.type === "folder" && old?.type !== "file" ? "folder" : "file";
      const entry: CheckpointEntry = {
        path: relative,
        type,
        before: stateOf(old, type),
        after: stateOf(now, type),
      };
      if (type === "file" && old?.type === "file" && old.hash === null) {
        entry.note =
          old.size > this.limits.maxFileBytes
            ? `its previous content was not kept: ${aboveLimit(old.size, this.limits.maxFileBytes)}`
            : `its previous content was not kept: the session's limit of ${formatBytes(this.limits.maxIndexedBytes)} of kept content was reached`;
      }
      out.push(entry);
    }
    return out;
  }
}
