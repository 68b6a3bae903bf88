import { statSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { walkWorkspace } from "../capability/workspace-walker.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { type Db, writeTransaction } from "../store/database.ts";
import type { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import type { BlobStore } from "./blob-store.ts";
import type { CheckpointLimits } from "./checkpoint-limits.ts";
import type { EntryType } from "./checkpoint-store.ts";

/** What the index knows of one path: enough of its stat to notice a change, and its content's hash. */
export interface IndexedPath {
  type: EntryType;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** The blob holding its content; null for folders and for files whose content is not kept. */
  hash: string | null;
}

export type IndexSnapshot = Map<string, IndexedPath>;

export interface ScanResult {
  /** The index after the scan (what the workspace holds now). */
  snapshot: IndexSnapshot;
  /** Paths whose existence, type or content differ from the index before the scan, sorted. */
  changed: string[];
}

/** The workspace has more files than a scan may look at; command changes are not checkpointed. */
export class WorkspaceTooLarge extends LatheError {
  constructor(message: string) {
    super("workspace_too_large", message);
  }
}

interface IndexRow {
  path: string;
  type: EntryType;
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  mode: number;
  hash: string | null;
}

interface WorkspaceIndexOptions {
  db: Db;
  blobs: BlobStore;
  sessionId: string;
  /** Canonical workspace root. */
  root: string;
  /** Folders (POSIX, relative to the root) never scanned: Lathe's own data inside the workspace. */
  skip: readonly string[];
  limits: CheckpointLimits;
  /**
   * What Lathe hides from its tools: left out of the scan, so a home folder opened as the
   * workspace never has its keys copied into the checkpoint store (nor restored from it).
   */
  hidden: HiddenPathSet;
}

/** Reads of changed files in flight at once during a scan. */
const READ_CONCURRENCY = 8;

function sameStat(a: IndexedPath, b: Pick<IndexedPath, "size" | "mtimeMs" | "ctimeMs" | "ino">): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Whether two index states of a path differ in what a restore cares about. */
function differs(before: IndexedPath | undefined, after: IndexedPath | undefined): boolean {
  if (!before || !after) return before !== after;
  if (before.type !== after.type) return true;
  if (before.type === "folder") return false;
  // Permission bits count too: a `chmod -x` is a change a restore has to undo.
  if (before.hash !== null && after.hash !== null)
    return before.hash !== after.hash || before.mode !== after.mode;
  return !sameStat(before, after) || before.hash !== after.hash;
}

/**
 * A session's picture of its workspace, for checkpointing what shell commands change: every
 * file and folder the .gitignore-aware walker sees (`.git`, ignored paths and Lathe's own data
 * left out), with its size, times, inode and the hash of its content, kept in SQLite. A scan
 * stats everything and reads only files whose stat changed since the last one; their content
 * goes to the blob store (once per distinct content), so when a command then changes or deletes
 * a file, its previous content is already kept. Files above the size limit, and past the
 * session's content limit, are tracked by stat only.
 */
export class WorkspaceIndex {
  private readonly options: WorkspaceIndexOptions;

  constructor(options: WorkspaceIndexOptions) {
    this.options = options;
  }

  /** The index as stored. */
  load(): IndexSnapshot {
    const rows = this.options.db
      .prepare(
        "SELECT path, type, size, mtime_ms, ctime_ms, ino, mode, hash FROM checkpoint_index WHERE session_id = ?",
      )
      .all(this.options.sessionId) as IndexRow[];
    return new Map(
      rows.map((r) => [
        r.path,
        {
          type: r.type,
          size: r.size,
          mtimeMs: r.mtime_ms,
          ctimeMs: r.ctime_ms,
          ino: r.ino,
          mode: r.mode,
          hash: r.hash,
        },
      ]),
    );
  }

  /** Forget the index (its blobs become garbage unless a checkpoint refers to them). */
  drop(): void {
    this.options.db.prepare("DELETE FROM checkpoint_index WHERE session_id = ?").run(this.options.sessionId);
  }

  /**
   * Scan the workspace against `previous` (default: the stored index), keep the content of new
   * and changed files, store the new index and say which paths changed. Throws
   * WorkspaceTooLarge past `maxFiles`, and the signal's reason when it aborts.
   */
  async scan(previous: IndexSnapshot = this.load(), signal?: AbortSignal): Promise<ScanResult> {
    const { root, limits } = this.options;
    const seen = await this.walk(signal);
    const snapshot: IndexSnapshot = new Map();
    const toRead: Array<[string, IndexedPath]> = [];
    let kept = 0;
    for (const [relative, stats] of seen) {
      const found: IndexedPath = {
        type: stats.isDirectory() ? "folder" : "file",
        size: stats.isDirectory() ? 0 : stats.size,
        mtimeMs: stats.mtimeMs,
        ctimeMs: stats.ctimeMs,
        ino: stats.ino,
        mode: stats.mode & 0o7777,
        hash: null,
      };
      const old = previous.get(relative);
      if (found.type === "folder") {
        snapshot.set(relative, found);
      } else if (old && old.type === "file" && sameStat(old, found)) {
        snapshot.set(relative, old);
        if (old.hash !== null) kept += old.size;
      } else if (found.size > limits.maxFileBytes || kept + found.size > limits.maxIndexedBytes) {
        snapshot.set(relative, found);
      } else {
        kept += found.size;
        toRead.push([relative, found]);
      }
    }
    let next = 0;
    const readOne = async (): Promise<void> => {
      while (next < toRead.length) {
        const [relative, found] = toRead[next++] as [string, IndexedPath];
        signal?.throwIfAborted();
        let bytes: Buffer;
        try {
          bytes = await readFile(`${root}/${relative}`);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") continue; // gone since the walk
          throw err;
        }
        snapshot.set(relative, {
          ...found,
          size: bytes.byteLength,
          hash: await this.options.blobs.put(bytes),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, toRead.length) }, readOne));
    const changed: string[] = [];
    for (const [p, now] of snapshot) if (differs(previous.get(p), now)) changed.push(p);
    for (const p of previous.keys()) if (!snapshot.has(p)) changed.push(p);
    changed.sort();
    this.save(previous, snapshot);
    return { snapshot, changed };
  }

  /** Stat every file and folder the walker sees, by POSIX path relative to the root. */
  private async walk(signal: AbortSignal | undefined): Promise<Map<string, Stats>> {
    const { root, skip, limits, hidden } = this.options;
    const seen = new Map<string, Stats>();
    const add = (relative: string, absolute: string): void => {
      const stats = statSync(absolute, { throwIfNoEntry: false });
      if (!stats) return;
      // A hard link to a hidden file (`ln ~/.ssh/id_ed25519 notes`) is that file: its content is
      // never copied into the store, where a restore could bring it back as a plain file.
      if (hidden.linkedHidden(stats)) return;
      seen.set(relative, stats);
      if (seen.size > limits.maxFiles) {
        throw new WorkspaceTooLarge(
          `the workspace has more than ${limits.maxFiles} files and folders (outside .gitignore), too many to scan before and after each command`,
        );
      }
    };
    await walkWorkspace(
      root,
      { root, mayRead: () => true, hidden },
      {
        ...(signal ? { signal } : {}),
        enterDir: (relative) => {
          if (skip.some((s) => relative === s || relative.startsWith(`${s}/`))) return false;
          add(relative, `${root}/${relative}`);
          return true;
        },
        onFile: ({ absolute, relative }) => {
          // A symlinked file is reported with its target's path: the link itself is not content.
          if (absolute !== `${root}/${relative}`) return;
          add(relative, absolute);
        },
      },
    );
    return seen;
  }

  /** Write what differs between the stored index and the new one, in one transaction. */
  private save(previous: IndexSnapshot, snapshot: IndexSnapshot): void {
    const { db, sessionId } = this.options;
    const upsert = db.prepare(
      `INSERT INTO checkpoint_index (session_id, path, type, size, mtime_ms, ctime_ms, ino, mode, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, path) DO UPDATE SET type = excluded.type, size = excluded.size,
         mtime_ms = excluded.mtime_ms, ctime_ms = excluded.ctime_ms, ino = excluded.ino, mode = excluded.mode,
         hash = excluded.hash`,
    );
    const remove = db.prepare("DELETE FROM checkpoint_index WHERE session_id = ? AND path = ?");
    const updated = [...snapshot].filter(([p, entry]) => previous.get(p) !== entry);
    const removed = [...previous.keys()].filter((p) => !snapshot.has(p));
    if (updated.length === 0 && removed.length === 0) return;
    writeTransaction(db, () => {
      for (const [p, entry] of updated) {
        upsert.run(
          sessionId,
          p,
          entry.type,
          entry.size,
          entry.mtimeMs,
          entry.ctimeMs,
          entry.ino,
          entry.mode,
          entry.hash,
        );
      }
      for (const p of removed) remove.run(sessionId, p);
    })();
  }
}
