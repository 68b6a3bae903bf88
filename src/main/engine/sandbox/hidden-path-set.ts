import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { hiddenInodesOf, MAX_INDEXED_ENTRIES, type FileIdentity } from "./hidden-inode-index.ts";
import { LATHE_HOME_UNINDEXED, latheHomeHiding } from "./lathe-home-private.ts";

/** A path that neither Lathe's tools nor the processes it confines may read, and what hides it. */
export interface HiddenPath {
  /** The path as the kernel meets it (canonical). */
  path: string;
  /** The entry that hides it: a `sandbox.denyRead` entry, or `$LATHE_HOME` (or one of its private files). */
  entry: string;
  hiddenBy: "denyRead" | "lathe-home";
  /**
   * Set when a file was judged by its identity rather than its name (see linkedHidden):
   * `"hidden-name"`: it is a hard link, and `path` is another name of it that is hidden;
   * `"unchecked"`: it has several names and `entry` holds too much (more than
   * MAX_INDEXED_ENTRIES files) to make sure none of them is in it.
   */
  hardLink?: "hidden-name" | "unchecked";
}

/** What linkedHidden needs of a file's stats. */
export interface LinkStats extends FileIdentity {
  nlink: number;
  isFile(): boolean;
}

/** How many files a hidden entry may hold before a multiply-linked file cannot be checked against it. */
export const MAX_CHECKED_HIDDEN_FILES = MAX_INDEXED_ENTRIES;

/** Where the hidden paths come from: the same lists the OS sandbox is given. */
export interface HiddenPathSources {
  /** `sandbox.denyRead`, absolute (EffectiveSandboxSettings.denyRead). */
  denyRead: readonly string[];
  latheHome: string;
  /** Folders inside the hidden ones that stay readable (a session's own sidecar files). */
  readable: readonly string[];
  /** The user's settings file, which messages name as the place to change `sandbox.denyRead`. */
  settingsFile: string;
}

interface Entry {
  entry: string;
  hiddenBy: HiddenPath["hiddenBy"];
  canonical: string;
  asWritten: string;
}

const within = (p: string, entry: string): boolean => p === entry || p.startsWith(`${entry}/`);

/** Links followed while canonicalising one entry before giving up (the kernel's own limit). */
const MAX_LINK_HOPS = 40;

/** `~/…` for a path under the home folder, for messages. */
export function homeRelative(p: string): string {
  const home = os.homedir();
  return within(p, home) ? `~${p.slice(home.length)}` : p;
}

/**
 * What `sandbox.denyRead` and `$LATHE_HOME`'s privacy (lathe-home-private.ts) hide, resolved as
 * the kernel resolves paths, so that any path can be judged against it: the containment the OS
 * sandbox gives confined processes, held also for what Lathe's own file tools read, write and
 * walk. Its entries are canonicalised when first needed, and checked again at each call's
 * decision (forgetPaths, which also forgets every other path's resolution): a check costs a
 * `realpath` per entry and per path named, then string comparisons.
 */
export class HiddenPathSet {
  /** The user's settings file, for messages (where `sandbox.denyRead` is changed). */
  readonly settingsFile: string;
  private readonly sources: HiddenPathSources | undefined;
  private readonly known = new Map<string, string>();
  private resolved: { entries: Entry[]; readable: string[]; paths: Set<string> } | undefined;
  /** The inode indexes of the entries, refreshed once for this set (see linkedHidden). */
  private inodeIndexes: ReturnType<typeof hiddenInodesOf>[] | undefined;

  private constructor(sources: HiddenPathSources | undefined) {
    this.sources = sources;
    this.settingsFile = sources?.settingsFile ?? "settings.json";
  }

  static of(sources: HiddenPathSources): HiddenPathSet {
    return new HiddenPathSet(sources);
  }

  /** A set that hides nothing: for a capability surface outside any engine (tests, tools' own checks). */
  static none(): HiddenPathSet {
    return new HiddenPathSet(undefined);
  }

  /**
   * A path as the kernel resolves it: its real path, or for a missing one its nearest existing
   * folder's real path with the rest as written (a dangling symlink followed to where it points).
   * Synchronous, with one answer per path: it runs before every call, where a trip through the
   * thread pool per entry would cost more than the check itself.
   */
  canonical(p: string, hops = 0): string {
    const cached = this.known.get(p);
    if (cached !== undefined) return cached;
    let resolved: string;
    try {
      resolved = realpathSync.native(p);
    } catch {
      const parent = path.dirname(p);
      const link = hops < MAX_LINK_HOPS ? danglingTarget(p) : undefined;
      resolved =
        link !== undefined
          ? this.canonical(path.resolve(this.canonical(parent, hops + 1), link), hops + 1)
          : parent === p
            ? p
            : path.join(this.canonical(parent, hops + 1), path.basename(p));
    }
    this.known.set(p, resolved);
    return resolved;
  }

  /**
   * Forget how paths resolved. A set lives as long as its session's capability for a tool, so
   * each call's decision starts afresh: `notes.txt`, a plain file at one call and a link to
   * ~/.ssh/id_ed25519 at the next, must not be judged by what it was (with no sandbox, `cat
   * notes.txt` printed the key). The entries are resolved again too (one `realpath` each): when
   * one resolves elsewhere now (~/.ssh moved away and left as a link to where it went, or made
   * as a link after the session started), the set starts over, its hard-link index with it;
   * with no sandbox, `cat ~/.ssh/id_ed25519` printed the key through the new link.
   */
  forgetPaths(): void {
    this.known.clear();
    const entries = this.resolved?.entries ?? [];
    if (entries.some((e) => this.canonical(e.asWritten) !== e.canonical)) {
      this.resolved = undefined;
      this.inodeIndexes = undefined;
    }
  }

  private get lists(): { entries: Entry[]; readable: string[]; paths: Set<string> } {
    if (this.resolved) return this.resolved;
    if (!this.sources) return (this.resolved = { entries: [], readable: [], paths: new Set() });
    const { denyRead, latheHome, readable } = this.sources;
    const home = latheHomeHiding(latheHome, denyRead);
    const entries = [
      ...denyRead.map((entry) => ({ entry, hiddenBy: "denyRead" as const })),
      ...home.unreadable.map((entry) => ({ entry, hiddenBy: "lathe-home" as const })),
    ].map((e) => ({
      ...e,
      asWritten: path.resolve(e.entry),
      canonical: this.canonical(path.resolve(e.entry)),
    }));
    this.resolved = {
      entries,
      readable: [...home.readable, ...readable].map((r) => this.canonical(path.resolve(r))),
      paths: new Set(entries.flatMap((e) => [e.canonical, e.asWritten])),
    };
    return this.resolved;
  }

  /** $LATHE_HOME's folders the hard-link check leaves out (see LATHE_HOME_UNINDEXED), canonical. */
  private get unindexed(): string[] {
    const home = this.sources?.latheHome;
    if (home === undefined) return [];
    return LATHE_HOME_UNINDEXED.map((name) => this.canonical(path.join(path.resolve(home), name)));
  }

  /** Whether the set hides anything at all. */
  get isEmpty(): boolean {
    return this.lists.entries.length === 0;
  }

  /**
   * What hides a canonical path, if anything: it lies under a `denyRead` entry, or inside
   * `$LATHE_HOME` outside its public folders (`$LATHE_HOME` itself may be named: its public
   * folders show), and not under a readable folder.
   */
  find(p: string): HiddenPath | undefined {
    const { entries, readable } = this.lists;
    if (entries.length === 0) return undefined;
    if (readable.some((r) => within(p, r))) return undefined;
    const found = entries.find((e) =>
      e.hiddenBy === "lathe-home"
        ? p !== e.canonical && p !== e.asWritten && (within(p, e.canonical) || within(p, e.asWritten))
        : within(p, e.canonical) || within(p, e.asWritten),
    );
    return found && { path: p, entry: found.entry, hiddenBy: found.hiddenBy };
  }

  /**
   * Whether anything at or below a canonical folder is hidden (a walk of it must look). `levels`:
   * the walk lists names only that many levels below the folder, so a hidden entry at that level
   * or deeper shows at most its own name (as `ls` shows it) and is never entered.
   */
  hidesBelow(folder: string, levels = Infinity): boolean {
    const entered = (entry: string): boolean =>
      within(entry, folder) && (entry === folder || path.relative(folder, entry).split("/").length < levels);
    return (
      this.lists.entries.some((e) => entered(e.canonical) || entered(e.asWritten)) ||
      this.find(folder) !== undefined
    );
  }

  /**
   * What hides a file by its identity: a regular file with more than one name (`nlink` > 1) is
   * hidden when another of its names is, since a hard link is the same file under another name,
   * which no path check can see. Files with one name cost nothing here (the common case); the
   * first multiply-linked file a set meets builds or refreshes the index of every entry's files
   * (see hidden-inode-index.ts), once for the set. An entry too large to index hides every
   * multiply-linked file (it fails closed). `stats` are those of the opened file.
   */
  linkedHidden(stats: LinkStats): HiddenPath | undefined {
    if (stats.nlink <= 1 || !stats.isFile()) return undefined;
    const { entries } = this.lists;
    if (entries.length === 0) return undefined;
    this.inodeIndexes ??= entries.map((e) =>
      hiddenInodesOf(e.canonical, e.hiddenBy === "lathe-home" ? this.unindexed : []),
    );
    for (const [i, index] of this.inodeIndexes.entries()) {
      const answer = index.lookup(stats);
      if (answer === undefined) continue;
      const e = entries[i] as Entry;
      if ("tooLarge" in answer)
        return { path: e.canonical, entry: e.entry, hiddenBy: e.hiddenBy, hardLink: "unchecked" };
      for (const name of answer.found) {
        const found = this.find(name);
        if (found) return { ...found, hardLink: "hidden-name" };
      }
    }
    return undefined;
  }

  /**
   * How many levels below a canonical folder its shallowest hidden entry lies (`private` in it:
   * 1), so a walk that lists names no deeper than that shows the entry's name and nothing inside;
   * undefined when nothing below it is hidden or it is hidden itself.
   */
  shallowestHidden(folder: string): number | undefined {
    if (this.find(folder) !== undefined) return undefined;
    const levels = this.lists.entries
      .flatMap((e) => [e.canonical, e.asWritten])
      .filter((entry) => entry !== folder && within(entry, folder))
      .map((entry) => path.relative(folder, entry).split("/").length);
    return levels.length === 0 ? undefined : Math.min(...levels);
  }

  /** Whether a canonical path is one of the entries itself (a walk's quick test, see workspace-walker.ts). */
  isEntry(p: string): boolean {
    return this.lists.paths.has(p);
  }

  /** Whether a canonical path is an entry or lies in one (`$LATHE_HOME` itself included). */
  covers(p: string): boolean {
    return this.lists.entries.some((e) => within(p, e.canonical) || within(p, e.asWritten));
  }

  /** Whether a readable folder lies at or below a canonical folder (a hidden one that must still be entered). */
  holdsReadable(folder: string): boolean {
    return this.lists.readable.some((r) => within(r, folder));
  }
}

/** Where a dangling symlink at `p` points, if `p` is one. */
function danglingTarget(p: string): string | undefined {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : undefined;
  } catch {
    return undefined;
  }
}
