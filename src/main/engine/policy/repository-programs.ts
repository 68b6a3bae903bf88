// What a repository's own git configuration makes git run. A command the shell analysis proves
// read-only (`git status`, `git log`) still runs what the repository it works in names:
// `core.fsmonitor` on `git status`, `core.pager` on `git log` (bash runs on a terminal), a
// `diff.*.textconv`, a `post-index-change` hook when git refreshes the index. With the OS sandbox
// off, such a command runs unasked and unconfined, so a folder someone handed over (an archive
// holding its `.git`, a shared drive) would run its programs as the user. This finds them.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readGitConfig, type ReadConfig } from "../git/git-config-file.ts";
import { gitDirCandidates } from "../git/git-discovery.ts";
import { commonDirOf, gitDirOf, type UnspellableGitDir } from "../git/git-pointer.ts";
import { indexGitlinks, UnreadableIndex } from "../git/index-gitlinks.ts";
import { isInertGitSetting } from "../git/inert-git-config.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { parseGit } from "./shell/git-command.ts";

/** Submodule git folders looked at below one repository before Lathe stops and asks instead. */
const MAX_SUBMODULE_FOLDERS = 400;

/**
 * What in a git folder makes git run a program: settings of its config files that are not known
 * to run nothing, hooks (git's `*.sample` files aside), and the same in its submodules' git
 * folders (`git status` runs `git status` in each submodule, and with it that one's
 * `core.fsmonitor`). `worktree` is the folder the repository is checked out in, when known: a
 * submodule checked out with a `.git` folder of its own sits where its `.gitmodules` says.
 * Empty when there is nothing.
 */
function programsOf(gitDir: string, worktree: string | undefined, seen = new Set<string>()): string[] {
  if (seen.has(gitDir)) return [];
  seen.add(gitDir);
  if (seen.size > MAX_SUBMODULE_FOLDERS)
    return [`more than ${MAX_SUBMODULE_FOLDERS} submodule git folders below ${gitDir}, too many to look at`];
  const common = commonDirOf(gitDir);
  if (typeof common === "object") return [common.unspellable];
  const commonDir = common ?? gitDir;
  const found: string[] = [];
  let sha256 = false;
  for (const file of [path.join(commonDir, "config"), path.join(gitDir, "config.worktree")]) {
    const read = configAt(file);
    if (read === undefined) continue;
    if (read.kind === "no-git") return [`${file} (git could not be run to read it: ${read.reason})`];
    if (read.kind === "refused") continue; // git refuses to work there at all
    const keys = read.settings.filter((s) => !isInertGitSetting(s.key, s.value)).map((s) => s.key);
    if (keys.length > 0) found.push(`${[...new Set(keys)].join(", ")} in ${file}`);
    sha256 ||= read.settings.some(
      (s) => s.key === "extensions.objectformat" && s.value?.toLowerCase() === "sha256",
    );
  }
  const hooksDir = path.join(commonDir, "hooks");
  const hooks = existsSync(hooksDir) ? readdirSync(hooksDir).filter((name) => !name.endsWith(".sample")) : [];
  if (hooks.length > 0)
    found.push(`the hook${hooks.length > 1 ? "s" : ""} ${hooks.join(", ")} in ${hooksDir}`);
  const subs = submoduleGitDirs(gitDir, commonDir, worktree, sha256 ? 32 : 20);
  if (typeof subs === "string") return [subs];
  for (const sub of subs) {
    if ("unspellable" in sub) return [sub.unspellable];
    found.push(...programsOf(sub.gitDir, sub.worktree, seen));
    if (found.length > 0) break;
  }
  return found;
}

function configAt(file: string): ReadConfig | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  return readGitConfig(bytes);
}

/**
 * The git folders of a repository's submodules: every git folder git keeps below its `modules/`
 * (a name may hold slashes), and, in its work tree, the repository checked out at each path its
 * `.gitmodules` names or its index records as a gitlink (a repository added inside another
 * without `.gitmodules` is one too). A string says why they cannot be known.
 */
function submoduleGitDirs(
  gitDir: string,
  commonDir: string,
  worktree: string | undefined,
  hashBytes: 20 | 32,
): Array<{ gitDir: string; worktree: string | undefined } | UnspellableGitDir> | string {
  const out: Array<{ gitDir: string; worktree: string | undefined } | UnspellableGitDir> = [];
  const stack = [path.join(commonDir, "modules")];
  let looked = 0;
  while (stack.length > 0 && looked++ < MAX_SUBMODULE_FOLDERS) {
    const dir = stack.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const sub = path.join(dir, name);
      // A submodule's own submodules are below its own `modules/`, found when it is looked at.
      if (existsSync(path.join(sub, "HEAD"))) out.push({ gitDir: sub, worktree: undefined });
      else stack.push(sub);
    }
  }
  if (worktree === undefined) return out;
  const paths = new Set<string>();
  const listed = configAt(path.join(worktree, ".gitmodules"));
  if (listed?.kind === "settings")
    for (const { key, value } of listed.settings)
      if (/^submodule\..+\.path$/i.test(key) && value) paths.add(value);
  try {
    for (const link of indexGitlinks(path.join(gitDir, "index"), hashBytes)) paths.add(link);
  } catch (err) {
    if (err instanceof UnreadableIndex) return err.message;
    throw err;
  }
  for (const relative of paths) {
    const checkout = path.resolve(worktree, relative);
    const subGitDir = gitDirOf(path.join(checkout, ".git"));
    if (typeof subGitDir === "object") out.push(subGitDir);
    else if (subGitDir !== undefined) out.push({ gitDir: subGitDir, worktree: checkout });
  }
  return out;
}

/**
 * The folder a git folder is checked out in, seen from a folder inside it: the nearest folder at
 * or above `from` whose `.git` leads there; undefined for a bare repository.
 */
function worktreeOf(gitDir: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (gitDirOf(path.join(dir, ".git")) === gitDir) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The folders (absolute) a git command works in: where it runs, then each `-C`. */
function gitFolders(command: SimpleCommand, base: string): string[] | string {
  if (command.runsIn?.unknown !== undefined) return `git runs in a folder only known when the shell runs`;
  const starts = (command.runsIn?.dirs ?? ["."]).map((dir) => path.resolve(base, dir));
  const { folders } = parseGit(command.args);
  const out: string[] = [];
  for (const start of starts) {
    let folder = start;
    for (const word of folders) {
      if (!word.literal) return `git -C is given a folder only known when the shell runs`;
      folder = path.resolve(folder, word.text);
    }
    out.push(folder);
  }
  return out;
}

/**
 * Why the git commands among `commands` may run programs their repository names, or undefined
 * when none does: for a command that runs unconfined because it reads only.
 */
export function repositoryPrograms(commands: readonly SimpleCommand[], base: string): string | undefined {
  for (const command of commands) {
    if (path.basename(command.name) !== "git") continue;
    const folders = gitFolders(command, base);
    if (typeof folders === "string") return folders;
    for (const folder of folders) {
      // Every folder git may take there is judged (a bare repository, a `.git` git passes over).
      for (const gitDir of gitDirCandidates(folder)) {
        if (typeof gitDir === "object")
          return `git there uses a git folder Lathe cannot read (${gitDir.unspellable})`;
        const programs = programsOf(gitDir, worktreeOf(gitDir, folder));
        if (programs.length > 0)
          return `git there runs programs its repository names (${programs.join("; ")})`;
      }
    }
  }
  return undefined;
}
