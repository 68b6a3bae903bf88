import { lstatSync, readdirSync, type BigIntStats, type Dirent } from "node:fs";

/** One folder's names as last read, and the folder's identity and times when they were. */
interface Listing {
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  entries: readonly Dirent[];
}

export interface FolderListingsOptions {
  /** How many names all kept listings may hold together; the least recently used go first. */
  maxEntries: number;
  /**
   * How old a folder's times must be before its listing is kept. A folder's modification time
   * changes whenever a name in it is added, removed or renamed, but file systems stamp it from a
   * coarse clock (a few ms on Linux, 2 s on FAT): a change in the same tick as the listing would
   * leave the time as it was. A folder changed this recently is read again every time.
   */
  settleMs: number;
  /**
   * Which listing of a folder is the first kept: 1 keeps it at once; 2 (the default) reads a
   * folder met for the first time with one `readdir` and nothing else, and pays the `lstat` that
   * keeping needs only when the folder is listed again. A one-shot command (`lathe call glob`
   * without the daemon) walks each folder once: keeping its listings would be an `lstat` per
   * folder for nothing.
   */
  keepFrom?: 1 | 2;
  /** The wall clock in ms (tests). */
  now?: () => number;
  /** Reads a folder's times (tests); `lstatSync(…, { bigint: true })` otherwise. */
  statFolder?: (absolute: string) => BigIntStats;
}

const NS_PER_MS = 1_000_000n;

/**
 * Folder listings kept between walks of the same tree (glob and grep called again and again by an
 * agent, every command of the CLI daemon): a walk then pays one `lstat` per folder instead of
 * reading it, when the folder's device, inode, modification time and change time are those it had
 * when it was read. Adding, removing or renaming a name changes the folder's modification time;
 * `touch -d` can set that back, but not the change time, which only the kernel sets. This is how
 * git's untracked cache tells a folder unchanged. What the names are (file, folder, link) is as
 * listed: an entry changing kind is a removal and an addition, seen as such.
 */
export class FolderListings {
  readonly #kept = new Map<string, Listing>();
  /** Folders listed once and not kept (when keepFrom is 2): their next listing is kept. */
  #met = new Set<string>();
  #entries = 0;
  readonly #options: Required<FolderListingsOptions>;

  constructor(options: FolderListingsOptions) {
    this.#options = {
      keepFrom: 2,
      now: () => Date.now(),
      statFolder: (absolute) => lstatSync(absolute, { bigint: true }),
      ...options,
    };
  }

  /** The folder's entries, as `readdirSync(absolute, { withFileTypes: true })` gives them, and throws as it does. */
  list(absolute: string): readonly Dirent[] {
    if (this.#options.keepFrom === 2 && !this.#kept.has(absolute) && !this.#met.has(absolute)) {
      const entries = readdirSync(absolute, { withFileTypes: true });
      // As many folders as the budget has names: a folder holds at least one name to be worth keeping.
      if (this.#met.size >= this.#options.maxEntries) this.#met = new Set();
      this.#met.add(absolute);
      return entries;
    }
    this.#met.delete(absolute);
    let stats: BigIntStats;
    try {
      stats = this.#options.statFolder(absolute);
    } catch (err) {
      this.#forget(absolute);
      throw err;
    }
    const kept = this.#kept.get(absolute);
    if (kept !== undefined) {
      this.#forget(absolute);
      if (
        kept.dev === stats.dev &&
        kept.ino === stats.ino &&
        kept.mtimeNs === stats.mtimeNs &&
        kept.ctimeNs === stats.ctimeNs
      ) {
        this.#keep(absolute, kept); // now the most recently used
        return kept.entries;
      }
    }
    const entries = readdirSync(absolute, { withFileTypes: true });
    const settled = BigInt(Math.floor(this.#options.now() - this.#options.settleMs)) * NS_PER_MS;
    if (stats.isDirectory() && stats.mtimeNs < settled && stats.ctimeNs < settled) {
      this.#keep(absolute, {
        dev: stats.dev,
        ino: stats.ino,
        mtimeNs: stats.mtimeNs,
        ctimeNs: stats.ctimeNs,
        entries,
      });
    }
    return entries;
  }

  /** How many folders' listings are kept (tests, diagnostics). */
  get size(): number {
    return this.#kept.size;
  }

  /** Forget every listing (benchmarks measuring a first walk). */
  clear(): void {
    this.#kept.clear();
    this.#met.clear();
    this.#entries = 0;
  }

  #keep(absolute: string, listing: Listing): void {
    const { maxEntries } = this.#options;
    // A folder bigger than the whole budget would only push everything else out.
    if (listing.entries.length > maxEntries) return;
    this.#kept.set(absolute, listing);
    this.#entries += listing.entries.length;
    if (this.#entries <= maxEntries) return;
    for (const [oldest, old] of this.#kept) {
      if (this.#entries <= maxEntries) break;
      this.#kept.delete(oldest);
      this.#entries -= old.entries.length;
    }
  }

  #forget(absolute: string): void {
    const kept = this.#kept.get(absolute);
    if (kept === undefined) return;
    this.#kept.delete(absolute);
    this.#entries -= kept.entries.length;
  }
}

/**
 * The listings every walk in this process shares (about 120 bytes a name, measured: 25 MB at most). The
 * walk checks each listing against its folder, so any process may keep them for as long as it runs.
 */
export const folderListings = new FolderListings({ maxEntries: 200_000, settleMs: 3_000 });
