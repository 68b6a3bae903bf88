import { readdirSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import type { ShellWord, SimpleCommand } from "../tools/shell-command.ts";
import { mayBeOption } from "./shell/command-options.ts";
import { pathsIn } from "./shell/directory-tracking.ts";
import { opensNoFiles } from "./shell/read-only-paths.ts";
import { isPlainGlob } from "./shell/seen-path.ts";
import { shown } from "./shell/shown-text.ts";
import { expandTilde } from "./shell/tilde-path.ts";

// A file name is whatever whoever made the folder chose (a cloned repository, an unpacked
// archive), and a glob hands it to the program as one of its words: in a folder holding a file
// named `--pre=sh`, `rg foo *` is `rg foo --pre=sh …`, which runs `sh` on every file searched;
// a file named `-r` next to a link to the home folder makes `grep KEY *` read the whole home
// folder. A glob the shell expands where an option may stand is therefore read against the disk
// when the call is decided: a command given one that matches a name starting with `-` needs a
// person in every mode, as the option spelled out would (`rg --pre=sh`: the sandbox confines
// what runs, but no rule for rg allowed it). `--` before the operands, or `./*`, keeps the
// names operands.

/**
 * Whether `program` reads `name` as an option: one starting with `-`, and for find also `!`, `(`,
 * `)` and `,`, which start its expression (`find * -name x` with a file named `!` searches `.`);
 * for tar any name with a `:`, which as the archive names another machine.
 */
function readAsOption(program: string, name: string): boolean {
  if (program === "tar") return name.startsWith("-") || name.includes(":");
  return name.startsWith("-") || (program === "find" && /^[!(),]$/.test(name));
}

/** Whether what `glob` matches may start with what `program` reads as an option. */
function mayMatchOption(program: string, glob: ShellWord): boolean {
  // tar: a name with a `:` is a remote archive (`host:file`), wherever the pattern starts.
  if (program === "tar") return true;
  return mayBeOption(glob) || (program === "find" && glob.text.startsWith(","));
}

/** The names in `dir` the first segment of `pattern` matches that `program` reads as options. */
function optionLikeMatches(dir: string, pattern: string, program: string): string[] {
  const first = pattern.split("/")[0] ?? "";
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // As bash matches: a leading `.` must be spelled, which these names never need.
  const matches = picomatch(first, { dot: first.startsWith("."), nobrace: true, noextglob: true });
  return names.filter((name) => readAsOption(program, name) && matches(name));
}

/**
 * Why one of `commands` (those a read-only bash command runs) may be given a file name as an
 * option; undefined when no glob where an option may stand matches a name starting with `-`.
 * `base`: the folder the command line starts in.
 */
export function optionLikeFileName(commands: readonly SimpleCommand[], base: string): string | undefined {
  for (const command of commands) {
    const program = path.posix.basename(command.name);
    if (opensNoFiles(program) || command.runsIn?.unknown !== undefined) continue;
    for (const arg of command.args) {
      if (arg.literal && arg.text === "--") break;
      if (!isPlainGlob(arg) || arg.text.startsWith("/")) continue;
      if (!mayMatchOption(program, arg)) continue;
      for (const dir of pathsIn(command.runsIn, ".")) {
        const found = optionLikeMatches(path.resolve(base, expandTilde(dir)), arg.text, program)[0];
        if (found !== undefined && !found.startsWith("-") && program === "tar")
          return `the pattern ${shown(arg.text)} given to "tar" matches the file ${shown(found)}, which "tar" would read as an archive on another machine, through a remote shell (write ./${arg.text})`;
        if (found !== undefined)
          return `the pattern ${shown(arg.text)} given to "${program}" matches the file ${shown(found)}, which "${program}" would read as an option (write "--" before the operands, or ./${arg.text})`;
      }
    }
  }
  return undefined;
}
