// What a repository's own git configuration makes git run. A command the shell analysis proves
// read-only (`git status`, `git log`) still runs what the repository it works in names:
// `core.fsmonitor` on `git status`, `core.pager` on `git log` (bash runs on a terminal), a
// `diff.*.textconv`, a `post-index-change` hook when git refreshes the index. With the OS sandbox
// off, such a command runs unasked and unconfined, so a folder someone handed over (an archive
// holding its `.git`, a shared drive) would run its programs as the user. This finds them.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readGitConfig } from "../git/git-config-file.ts";
import { gitDirCandidates } from "../git/git-discovery.ts";
import { commonDirOf } from "../git/git-pointer.ts";
import { isInertGitSetting } from "../git/inert-git-config.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { parseGit } from "./shell/git-command.ts";

/**
 * What in a git folder makes git run a program: settings of its config files that are not known
 * to run nothing, and hooks (git's `*.sample` files aside). Empty when there is nothing.
 */
function programsOf(gitDir: string): string[] {
  const common = commonDirOf(gitDir);
  if (typeof common === "object") return [common.unspellable];
  const commonDir = common ?? gitDir;
  const found: string[] = [];
  for (const file of [path.join(commonDir, "config"), path.join(gitDir, "config.worktree")]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    const read = readGitConfig(bytes);
    if (read.kind === "no-git") return [`${file} (git could not be run to read it: ${read.reason})`];
    if (read.kind === "refused") continue; // git refuses to work there at all
    const keys = read.settings.filter((s) => !isInertGitSetting(s.key, s.value)).map((s) => s.key);
    if (keys.length > 0) found.push(`${[...new Set(keys)].join(", ")} in ${file}`);
  }
  const hooksDir = path.join(commonDir, "hooks");
  const hooks = existsSync(hooksDir) ? readdirSync(hooksDir).filter((name) => !name.endsWith(".sample")) : [];
  if (hooks.length > 0)
    found.push(`the hook${hooks.length > 1 ? "s" : ""} ${hooks.join(", ")} in ${hooksDir}`);
  return found;
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
        const programs = programsOf(gitDir);
        if (programs.length > 0)
          return `git there runs programs its repository names (${programs.join("; ")})`;
      }
    }
  }
  return undefined;
}
