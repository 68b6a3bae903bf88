import os from "node:os";
import type { ShellWord } from "./shell-types.ts";

/**
 * Which words of a command the policy can read as the paths they will be: a literal word, `~`
 * or `~/…` (expanded to the home folder when the call is decided), `$HOME/…` and `"${HOME}/…"`
 * (the same folder: bash starts with Lathe's HOME, and a command that sets or unsets HOME is
 * never judged read-only, see sensitive-variables.ts), and an unquoted glob with nothing else in
 * it (expanded against the disk when the call is decided). Any other word (`$H/x`, `"$f"`,
 * `~/'.ssh'`, the names `xargs` reads, find's `{}`) is only known when the shell runs, so no
 * check of the paths a command names can see it.
 */

/** What may follow the home folder in a word Lathe reads as a path: `/` and plain characters. */
const REST = String.raw`(?:/[^$\x60*?[{\\'"]*)?`;

/** `$HOME/…`, `${HOME}/…` unquoted: the value is split into words and globbed, so only a plain one is taken. */
const UNQUOTED_HOME = new RegExp(String.raw`^\$(?:HOME|\{HOME\})(${REST})$`);
/** `"$HOME/…"`, `"${HOME}"/…`: the value as it is. */
const QUOTED_HOME = new RegExp(String.raw`^"\$(?:HOME|\{HOME\})(${REST})"$|^"\$(?:HOME|\{HOME\})"(${REST})$`);

/** A home folder that unquoted `$HOME` expands to as it is: no character that splits a word or makes a glob. */
const PLAIN_HOME = /^[A-Za-z0-9._/@%+=:,-]*$/;

/** `$HOME/…` in the words above as `~/…` (which the policy expands), or undefined when it is none of them. */
function homeAsTilde(text: string): string | undefined {
  const quoted = QUOTED_HOME.exec(text);
  const unquoted = quoted === null && PLAIN_HOME.test(os.homedir()) ? UNQUOTED_HOME.exec(text) : null;
  const match = quoted ?? unquoted;
  if (match === null) return undefined;
  return `~${match[1] ?? match[2] ?? ""}`;
}

/** A word naming a path: its literal value, `~/…` as the shell will expand it, or undefined when dynamic. */
export function pathOfWord(word: ShellWord): string | undefined {
  if (word.literal) return word.text;
  if (word.text === "~" || /^~\/[^$`*?[{\\'"]*$/.test(word.text)) return word.text;
  return homeAsTilde(word.text);
}

/** An unquoted word the shell expands as a glob, and nothing else (no variables, quotes or braces). */
const PLAIN_GLOB = /^[^$`"'\\{}()<>|;&\s]*[*?[][^$`"'\\{}()<>|;&\s]*$/;

export function isPlainGlob(word: ShellWord): boolean {
  return !word.literal && PLAIN_GLOB.test(word.text);
}

/** Whether the policy sees the path `word` names before the command runs (see above). */
export function pathIsSeen(word: ShellWord): boolean {
  return isPlainGlob(word) || pathOfWord(word) !== undefined;
}
