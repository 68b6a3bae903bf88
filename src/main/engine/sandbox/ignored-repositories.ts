// The git repositories inside folders the workspace's ignore files leave out (node_modules,
// build output). The workspace walk does not enter those, yet git works in any repository it
// finds there (node_modules/x/y/z/.git, or a bare `x.git` folder), so the look for planted
// repositories (planted-repos.ts) reads their folders too: names only, no file is opened. Such
// folders are big and seldom change, so what each held is kept from one look to the next, and a
// look lists again only the folders whose change time or identity moved since (a folder's change
// time moves whenever an entry is added, removed or renamed in it): after the first look, one
// lstat per folder.
import { lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import path from "node:path";
import { isBareRepository } from "../git/bare-repository.ts";

/** Folders below ignored folders one look goes through, at most. */
export const MAX_IGNORED_FOLDERS = 20_000;

/** What one folder held when last listed. */
interface Listed {
  /** Its identity and change time: while they stay, so does what it holds. */
  stamp: string;
  /** Its folders, to go through (absolute). */
  folders: string[];
  /** The repositories in it: its `.git` (of any type, or one through a link), or itself when it is a bare repository. */
  repos: string[];
}

/** What one look below the ignored folders found, and whether it stopped early. */
export interface IgnoredRepositories {
  /** `.git` entries and bare repositories, absolute. */
  found: string[];
  /** The first folder left unread when the look stopped at MAX_IGNORED_FOLDERS. */
  cut?: string;
}

function stampOf(folder: string): string | undefined {
  const stat = lstatSync(folder, { throwIfNoEntry: false, bigint: true });
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}:${stat.ctimeNs}` : undefined;
}

/** Whether a link leads to a folder holding a `.git` (a link to a file, or a dangling one, does not). */
function linkedGitEntry(link: string): boolean {
  try {
    return statSync(path.join(link, ".git"), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function list(folder: string, stamp: string): Listed {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return { stamp, folders: [], repos: [] }; // gone, or not ours to list: git cannot work there either
  }
  if (entries.some((e) => e.name === "HEAD") && isBareRepository(folder, new Set(entries.map((e) => e.name))))
    return { stamp, folders: [], repos: [folder] };
  const listed: Listed = { stamp, folders: [], repos: [] };
  for (const entry of entries) {
    const absolute = path.join(folder, entry.name);
    if (entry.name === ".git") listed.repos.push(absolute);
    else if (entry.isDirectory()) listed.folders.push(absolute);
    else if (entry.isSymbolicLink() && linkedGitEntry(absolute))
      listed.repos.push(path.join(absolute, ".git"));
  }
  return listed;
}

/** What the folders below one workspace's ignored folders held at its last look. */
export class IgnoredFolders {
  private listed = new Map<string, Listed>();
  private last: IgnoredRepositories = { found: [] };
  /** Whether a look was made yet. */
  looked = false;

  /** The repositories the last look found, without looking again (none before the first). */
  get known(): IgnoredRepositories {
    return this.last;
  }

  /**
   * The repositories at or below each of `tops` (absolute, not entered by the workspace walk),
   * listing again only the folders that changed since the last look. A `.git` or a bare
   * repository is not entered; a link to a folder is not followed, but a `.git` in the folder it
   * leads to counts, as the workspace walk counts one.
   */
  look(tops: readonly string[]): IgnoredRepositories {
    const next = new Map<string, Listed>();
    const found: string[] = [];
    const stack = [...tops];
    let cut: string | undefined;
    while (stack.length > 0) {
      const folder = stack.pop() as string;
      if (next.size >= MAX_IGNORED_FOLDERS) {
        cut = folder;
        break;
      }
      const stamp = stampOf(folder);
      if (stamp === undefined) continue;
      const before = this.listed.get(folder);
      const now = before?.stamp === stamp ? before : list(folder, stamp);
      next.set(folder, now);
      found.push(...now.repos);
      stack.push(...now.folders);
    }
    this.listed = next;
    this.looked = true;
    this.last = cut === undefined ? { found } : { found, cut };
    return this.last;
  }
}
