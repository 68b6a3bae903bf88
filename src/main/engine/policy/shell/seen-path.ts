import type { ShellWord } from "./shell-types.ts";

/**
 * Which words of a command the policy can read as the paths they will be: a literal word, `~`
 * or `~/…` (expanded to the home folder when the call is decided), and an unquoted glob with
 * nothing else in it (expanded against the disk when the call is decided). Any other word
 * (`$HOME/x`, `"$f"`, `~/'.ssh'`, the names `xargs` reads, find's `{}`) is only known when the
 * shell runs, so no check of the paths a command names can see it.
 */

/** A word naming a path: its literal value, `~/…` as the shell will expand it, or undefined when dynamic. */
export function pathOfWord(word: ShellWord): string | undefined {
  if (word.literal) return word.text;
  if (word.text === "~" || /^~\/[^$`*?[{\\'"]*$/.test(word.text)) return word.text;
  return undefined;
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
