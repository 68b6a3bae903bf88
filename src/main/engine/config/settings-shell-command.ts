import path from "node:path";
import { SYSTEM_BIN_DIRS } from "../policy/shell-requirements.ts";

/** Shell syntax a program's name never has (`*` alone, any program, is allowed). */
const SHELL_SYNTAX = /[|&;<>()$`"'*?[\]{}!~]/;

/**
 * Why a `cmd` of the settings' `shell` list could never match a command bash runs, with the fix,
 * or undefined when it is fine. The bash tool compares it with each simple command's program, as
 * written (a program in a system bin folder by its bare name), so a command line, shell syntax or
 * `/usr/bin/git` would be an entry that silently allows nothing.
 */
export function shellCommandProblem(cmd: string): string | undefined {
  if (cmd === "*") return undefined;
  if (SHELL_SYNTAX.test(cmd)) {
    return `has shell syntax: "cmd" names one program, so it could never match; write the program's name alone, e.g. {"cmd": "cargo"}, one entry per program`;
  }
  const words = cmd.trim().split(/\s+/);
  if (/\s/.test(cmd)) {
    const fix =
      words.length > 1 && words[0] !== ""
        ? `write {"cmd": ${JSON.stringify(words[0])}, "args": ${JSON.stringify(words.slice(1))}} (or leave "args" out to allow any arguments)`
        : 'write the program\'s name alone, e.g. {"cmd": "cargo"}';
    return `has a space: "cmd" names one program, never a command line, so it could never match; ${fix}`;
  }
  if (cmd.includes("/")) {
    const dir = path.posix.dirname(path.posix.normalize(cmd));
    if (SYSTEM_BIN_DIRS.has(dir)) {
      const name = path.posix.basename(cmd);
      return `names a program in ${dir}, and those are matched by their name alone, so it could never match; write {"cmd": ${JSON.stringify(name)}}`;
    }
  }
  return undefined;
}
