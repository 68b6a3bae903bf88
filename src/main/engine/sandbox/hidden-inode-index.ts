import { lstatSync, readdirSync, type BigIntStats } from "node:fs";

/** A file as the kernel knows it whatever its names: its device and inode. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** What the index knows of a file identity under one hidden path. */
export type IndexAnswer =
  /** Its names under the hidden path. */
  | { found: string[] }
  /** The hidden path holds too much to say (more than MAX_INDEXED_ENTRIES). */
  | { tooLarge: true }
  | undefined;

/**
 * Files and folders one hidden path is indexed up to. Past that the index stops and answers
 * `tooLarge` for every file asked about: a caller refuses those (fails closed) rather than
 * scanning on. 50,000 `lstat` calls take about a tenth of a second, once.
 */
export const MAX_INDEXED_ENTRIES = 50_000;

/**
 * A folder whose modification time lies this close to the moment it was listed is listed again
 * next time: a file systems's timestamp has a coarse tick (a few milliseconds on ext4, seconds
 * on some), so a name added within the same tick leaves the time unchanged (git's "racily
 * clean" entries).
 */
const RACY_MS = 2_000;

/** How long a hidden path found too large is believed so before it is scanned again. */
const TOO_LARGE_RETRY_MS = 30_000;

interface Folder {
  ino: bigint;
  mtimeNs: bigint;
  listedAt: number;
  files: { key: string; path: string }[];
  folders: string[];
}

const keyOf = (dev: number | bigint, ino: number | bigint): string => `${dev}:${ino}`;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A path's stats (bigint: exact modification times), or undefined when it is gone. */
function lstatOf(p: string): BigIntStats | undefined {
  try {
    return lstatSync(p, { bigint: true });
  } catch (err) {
    if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * Every file under one hidden path (a `sandbox.denyRead` entry, `$LATHE_HOME`), by device and
 * inode: what a hard link elsewhere shares with a hidden file. Symlinks are not followed (a link
 * is a name of another path, which is judged by that path). Refreshed folder by folder: a folder
 * whose inode and modification time are unchanged since it was listed (and was not listed in
 * the same tick it changed) keeps its files; any other is listed again. That costs one `lstat`
 * per folder, and catches every name added, removed or renamed in the hidden path, which is what
 * changes the answer: a new hard link made elsewhere to a file already here changes nothing
 * here, and that file is indexed already.
 */
export class HiddenInodeIndex {
  private readonly folders = new Map<string, Folder>();
  private readonly inodes = new Map<string, string[]>();
  private tooLargeSince: number | undefined;
  /** A hidden path that is a file (or a missing path): its identity alone. */
  private single: string | undefined;

  private readonly root: string;
  private readonly maxEntries: number;
  private readonly skip: ReadonlySet<string>;

  /**
   * `root`: a canonical hidden path; `maxEntries`: see MAX_INDEXED_ENTRIES (smaller in tests);
   * `skip`: canonical folders (the root itself, or folders below it) whose files are not indexed.
   */
  constructor(root: string, maxEntries = MAX_INDEXED_ENTRIES, skip: ReadonlySet<string> = new Set()) {
    this.root = root;
    this.maxEntries = maxEntries;
    this.skip = skip;
  }

  /** Bring the index up to date with the disk (see the class comment). */
  refresh(): void {
    if (this.tooLargeSince !== undefined && Date.now() - this.tooLargeSince < TOO_LARGE_RETRY_MS) return;
    this.tooLargeSince = undefined;
    const top = this.skip.has(this.root) ? undefined : lstatOf(this.root);
    this.single = undefined;
    if (!top?.isDirectory()) {
      this.clear();
      if (top?.isFile()) {
        this.single = keyOf(top.dev, top.ino);
      }
      return;
    }
    const seen = new Set<string>();
    let counted = 0;
    const stack: { path: string; stats: BigIntStats }[] = [{ path: this.root, stats: top }];
    while (stack.length > 0) {
      const { path: folder, stats } = stack.pop() as { path: string; stats: BigIntStats };
      seen.add(folder);
      const known = this.folders.get(folder);
      const unchanged =
        known !== undefined &&
        known.ino === stats.ino &&
        known.mtimeNs === stats.mtimeNs &&
        known.listedAt - Number(stats.mtimeNs / 1_000_000n) > RACY_MS;
      const record = unchanged ? known : this.list(folder, stats);
      if (record === undefined) continue;
      counted += 1 + record.files.length;
      if (counted > this.maxEntries) {
        this.clear();
        this.tooLargeSince = Date.now();
        return;
      }
      for (const child of record.folders) {
        if (this.skip.has(child)) continue;
        const childStats = lstatOf(child);
        if (childStats?.isDirectory()) stack.push({ path: child, stats: childStats });
      }
    }
    for (const folder of [...this.folders.keys()]) if (!seen.has(folder)) this.forget(folder);
  }

  /** The names of a file identity under the hidden path, or that the path is too large to say. */
  lookup(id: FileIdentity): IndexAnswer {
    const key = keyOf(id.dev, id.ino);
    if (this.tooLargeSince !== undefined) return { tooLarge: true };
    if (this.single !== undefined) return this.single === key ? { found: [this.root] } : undefined;
    const names = this.inodes.get(key);
    return names === undefined ? undefined : { found: names };
  }

  /** List one folder again: its files by identity and its subfolders; undefined when it is gone. */
  private list(folder: string, stats: BigIntStats): Folder | undefined {
    this.forget(folder, false);
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (err) {
      if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return undefined;
      throw err;
    }
    const record: Folder = {
      ino: stats.ino,
      mtimeNs: stats.mtimeNs,
      listedAt: Date.now(),
      files: [],
      folders: [],
    };
    for (const entry of entries) {
      const child = `${folder}/${entry.name}`;
      if (entry.isDirectory()) record.folders.push(child);
      else if (entry.isFile()) {
        const s = lstatOf(child);
        if (!s?.isFile()) continue;
        const key = keyOf(s.dev, s.ino);
        record.files.push({ key, path: child });
        const names = this.inodes.get(key);
        if (names) names.push(child);
        else this.inodes.set(key, [child]);
      }
    }
    this.folders.set(folder, record);
    return record;
  }

  /** Drop one folder's files from the index (and its record, unless it is listed again at once). */
  private forget(folder: string, dropRecord = true): void {
    const record = this.folders.get(folder);
    if (!record) return;
    for (const { key, path } of record.files) {
      const names = this.inodes.get(key)?.filter((n) => n !== path);
      if (names === undefined || names.length === 0) this.inodes.delete(key);
      else this.inodes.set(key, names);
    }
    if (dropRecord) this.folders.delete(folder);
  }

  private clear(): void {
    this.folders.clear();
    this.inodes.clear();
  }
}

/** One index per hidden path, across calls and engines of this process (built on first need). */
const indexes = new Map<string, HiddenInodeIndex>();

/** The index of a canonical hidden path, without the folders `skip` names, refreshed (see HiddenInodeIndex). */
export function hiddenInodesOf(
  root: string,
  skip: readonly string[] = [],
): { lookup(id: FileIdentity): IndexAnswer } {
  const key = [root, ...skip].join("\u0000");
  let index = indexes.get(key);
  if (!index) {
    index = new HiddenInodeIndex(root, MAX_INDEXED_ENTRIES, new Set(skip));
    indexes.set(key, index);
  }
  index.refresh();
  return index;
}
