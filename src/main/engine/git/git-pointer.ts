// Where a `.git` entry sends git. A `.git` is a folder (the git folder itself), a link to one, or
// a file naming it (a linked worktree, a submodule checkout, `git init --separate-git-dir`). The
// file is read exactly as git reads it: it must start with `gitdir: `, and everything after that
// prefix is the name, only line ends taken off its end (spaces are part of the name, a second line
// is not a second chance) and cut at a NUL; a relative name is resolved against the folder holding
// the `.git` (for a link, where the link sits), and links are followed. A lenient reading would
// judge one folder while git uses another (`gitdir:  evil` is the folder " evil").
import { lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import path from "node:path";

/**
 * A git folder whose name Lathe cannot spell: its bytes are not UTF-8, so no string path reaches
 * it. Callers fail closed on it (the pointer is treated as leading somewhere unknown).
 */
export interface UnspellableGitDir {
  readonly unspellable: string;
}

/** What a `.git` entry names: an absolute folder, one Lathe cannot spell, or nothing. */
export type GitDirName = string | UnspellableGitDir | undefined;

const PREFIX = Buffer.from("gitdir: ");

/** The git folder named by a `.git` file's bytes, absolute, as git resolves it. */
function gitdirLine(dotGit: string, bytes: Buffer): GitDirName {
  if (!bytes.subarray(0, PREFIX.length).equals(PREFIX)) return undefined;
  return named(path.dirname(dotGit), bytes.subarray(PREFIX.length), `${dotGit} names`);
}

/**
 * The folder a git folder's `commondir` bytes name, absolute, as git resolves it (relative to
 * the git folder); undefined when they name none (git then uses the git folder itself).
 */
export function commonDirName(gitDir: string, bytes: Buffer): GitDirName {
  return named(gitDir, bytes, `${path.join(gitDir, "commondir")} names`);
}

/** A name as git reads it from a pointer file: cut at a NUL, line ends off its end, nothing else. */
function named(base: string, raw: Buffer, what: string): GitDirName {
  let name = raw;
  const nul = name.indexOf(0);
  if (nul >= 0) name = name.subarray(0, nul);
  let end = name.length;
  while (end > 0 && (name[end - 1] === 0x0a || name[end - 1] === 0x0d)) end--;
  name = name.subarray(0, end);
  if (name.length === 0) return undefined;
  const text = spell(name);
  if (text === undefined) return { unspellable: `${what} a git folder whose name is not UTF-8` };
  return path.resolve(base, text);
}

/**
 * The git folder a `.git` entry makes git use, absolute but not made canonical: the entry itself
 * when it is a folder, where a link leads, or what a file names. `stat` is the entry's own
 * (lstat), when the caller already has it.
 */
export function gitDirOf(dotGit: string, stat?: Stats): GitDirName {
  const own = stat ?? lstatSync(dotGit, { throwIfNoEntry: false });
  if (own === undefined) return undefined;
  if (own.isDirectory()) return dotGit;
  if (own.isSymbolicLink()) {
    const link = spell(readlinkSync(dotGit, { encoding: "buffer" }));
    if (link === undefined) return { unspellable: `${dotGit} is a link whose target's name is not UTF-8` };
    const target = path.resolve(path.dirname(dotGit), link);
    // A link to a `.git` file is read as the file, relative to where the link sits (as git does).
    const bytes = bytesOf(target);
    return bytes === undefined ? target : gitdirLine(dotGit, bytes);
  }
  const bytes = bytesOf(dotGit);
  return bytes === undefined ? undefined : gitdirLine(dotGit, bytes);
}

/** The folder a git folder's `commondir` names (see `commonDirName`). */
export function commonDirOf(gitDir: string): GitDirName {
  const bytes = bytesOf(path.join(gitDir, "commondir"));
  return bytes === undefined ? undefined : commonDirName(gitDir, bytes);
}

/** The bytes as a string path, or undefined when they are not UTF-8 (a lossy decode). */
function spell(bytes: Buffer): string | undefined {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
}

/** A file's bytes; undefined when it is missing, a folder or unreadable. */
function bytesOf(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
