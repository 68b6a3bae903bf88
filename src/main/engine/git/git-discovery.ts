// Which git folder git uses for a folder. Git looks in the folder and then each one above it: a
// `.git` entry first (a folder that is not a valid git folder is passed over), then the folder
// itself when it is a git folder (a bare repository: `safe.bareRepository` lets git use one found
// this way by default). Whoever judges what git will run there must judge the folder git picks;
// when the answer is not certain, every candidate on the way up is given, nearest first, so a
// caller that judges them all fails closed.
import { lstatSync, readFileSync, readlinkSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { commonDirOf, gitDirOf, type GitDirName } from "./git-pointer.ts";

/**
 * The git folders git may use for `folder` (absolute), nearest first, ending with the first one git
 * certainly uses; empty when there is none up to the file system's root.
 */
export function gitDirCandidates(folder: string): Exclude<GitDirName, undefined>[] {
  const out: Exclude<GitDirName, undefined>[] = [];
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, ".git");
    const stat = lstatSync(dotGit, { throwIfNoEntry: false });
    const followed = stat && followedStat(dotGit);
    if (stat && followed?.isFile()) {
      // A `.git` file stops git whatever it says: it works in the folder named, or refuses.
      const target = gitDirOf(dotGit, stat);
      if (target !== undefined) out.push(target);
      return out;
    }
    if (stat && followed?.isDirectory()) {
      // A folder (or a link to one) stops git only when it is a git folder; else git passes over it.
      const target = gitDirOf(dotGit, stat) ?? dotGit;
      out.push(target);
      if (typeof target === "string" && surelyGitDir(target)) return out;
    }
    // (A `.git` link leading nowhere is passed over, as git does.)
    if (hasHead(dir)) {
      out.push(dir);
      if (surelyGitDir(dir)) return out;
    }
    if (path.dirname(dir) === dir) return out;
  }
}

/**
 * Whether git certainly takes `dir` for a git folder: a valid `HEAD`, and `objects` and `refs`
 * folders (in the folder its `commondir` names, for a worktree's). False when unsure.
 */
export function surelyGitDir(dir: string): boolean {
  const common = commonDirOf(dir);
  if (typeof common === "object") return false;
  const shared = common ?? dir;
  return (
    validHead(path.join(dir, "HEAD")) &&
    isFolder(path.join(shared, "objects")) &&
    isFolder(path.join(shared, "refs"))
  );
}

function hasHead(dir: string): boolean {
  return lstatSync(path.join(dir, "HEAD"), { throwIfNoEntry: false }) !== undefined;
}

/** A `HEAD` git accepts: a link into `refs/`, `ref: refs/…`, or an object id. */
function validHead(head: string): boolean {
  const stat = lstatSync(head, { throwIfNoEntry: false });
  if (stat === undefined) return false;
  try {
    if (stat.isSymbolicLink()) return readlinkSync(head).startsWith("refs/");
    const text = readFileSync(head, "latin1");
    return /^ref:[ \t]*refs\//.test(text) || /^([0-9a-f]{40}|[0-9a-f]{64})(\n|$)/.test(text);
  } catch {
    return false;
  }
}

function isFolder(p: string): boolean {
  return followedStat(p)?.isDirectory() === true;
}

/** What a path leads to, links followed; undefined when it leads nowhere git could read. */
function followedStat(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}
