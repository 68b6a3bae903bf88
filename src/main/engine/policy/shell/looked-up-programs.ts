import type { SimpleCommand } from "./shell-types.ts";

/**
 * The program names a command makes something look up on PATH: its own name (bash looks it up,
 * or a wrapper such as xargs or env does), and the programs some readers start by name
 * themselves: `rg -z` its decompressors (`gzip`, `brotli`, …, for files with their endings),
 * `tar` the one an archive it lists is compressed with, the gzip scripts (`zcat`, `zgrep`)
 * `gzip`, `grep` and `sed`, npm's script `node`, git checking a signature (`verify-commit`, `--show-signature`) `gpg`. Whichever folder of PATH holds such a name first supplies the
 * program that runs, so each must be the system's.
 */

export interface LookedUpName {
  name: string;
  /** Bash runs the name itself (a builtin stays a builtin), rather than a program such as xargs or env. */
  byShell: boolean;
}

const DECOMPRESSORS = ["gzip", "bzip2", "xz", "lz4", "zstd", "brotli", "uncompress"];
const TAR_COMPRESSORS = ["gzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "compress"];

/** Whether the literal options before `--` hold `long` or the short letter `short` (alone or in a cluster). */
function hasOption(command: SimpleCommand, short: string, long: string): boolean {
  for (const arg of command.args) {
    if (!arg.literal) continue;
    if (arg.text === "--") return false;
    if (arg.text === long) return true;
    if (/^-[A-Za-z0-9]+$/.test(arg.text) && arg.text.slice(1).includes(short)) return true;
  }
  return false;
}

/** The names a program started as `program` runs itself, looked up on PATH. */
function helpersOf(program: string, command: SimpleCommand): string[] {
  switch (program) {
    case "rg":
      return hasOption(command, "z", "--search-zip") ? DECOMPRESSORS : [];
    case "tar":
      return TAR_COMPRESSORS;
    case "zcat":
      return ["gzip"];
    // npm's script starts with `#!/usr/bin/env node`.
    case "npm":
    case "npx":
      return ["node"];
    case "zgrep":
      return ["gzip", "grep", "sed"];
    case "git":
      // Checking a signature runs gpg (or gpgsm, ssh-keygen for the other gpg.format values).
      return command.args.some(
        (a) => /^(verify-commit|verify-tag|--show-signature)$/.test(a.text) || a.text.includes("%G"),
      )
        ? ["gpg", "gpgsm", "ssh-keygen"]
        : [];
    case "file":
      return hasOption(command, "z", "--uncompress") || hasOption(command, "Z", "--uncompress-noreport")
        ? DECOMPRESSORS
        : [];
    default:
      return [];
  }
}

/** Whether bash runs the command's name itself, not a program such as xargs or env. */
function byShell(command: SimpleCommand): boolean {
  const last = command.via.at(-1);
  return last === undefined || last === "sh -c" || last === "command" || last === "builtin";
}

/**
 * Every name looked up on PATH for `command`, known to be the program `program` (a system
 * folder's program when its name is a path).
 */
export function lookedUpNames(program: string, command: SimpleCommand): LookedUpName[] {
  const own = command.name.includes("/") ? [] : [{ name: program, byShell: byShell(command) }];
  return [...own, ...helpersOf(program, command).map((name) => ({ name, byShell: false }))];
}
