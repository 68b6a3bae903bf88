/**
 * GNU getopt_long takes any unambiguous prefix of a long option for the option (`sort --files0=x`
 * is `sort --files0-from=x`, `du --max-d=3` is `du --max-depth=3`), and refuses an ambiguous one
 * with an error before the program does anything. So a check for one long option by name must
 * take every prefix of that name as the option too: at worst it also takes a prefix another
 * option shares, which the program refuses anyway.
 */

/** The name of a long option word (`--files0=x` → `files0`), or undefined when it is none (`--`, `-x`, `x`). */
function longName(arg: string): string | undefined {
  if (!arg.startsWith("--") || arg === "--") return undefined;
  const eq = arg.indexOf("=");
  return arg.slice(2, eq === -1 ? undefined : eq);
}

/** Which of `names` (full long option names, without `--`) the word `arg` spells, itself or by a prefix. */
export function longOptionSpelled(arg: string, names: readonly string[]): string | undefined {
  const name = longName(arg);
  if (name === undefined || name === "") return undefined;
  return names.find((full) => full === name) ?? names.find((full) => full.startsWith(name));
}

/** Whether `arg` is the long option `name` (or one of `more`), spelled in full or by a prefix, with or without `=value`. */
export function isLongOption(arg: string, name: string, ...more: string[]): boolean {
  return longOptionSpelled(arg, [name, ...more]) !== undefined;
}

/** The value `arg` gives the long option `name` after `=` (`--max-d=3` → `3`), or undefined when it has none. */
export function longOptionValue(arg: string, name: string): string | undefined {
  if (!isLongOption(arg, name)) return undefined;
  const eq = arg.indexOf("=");
  return eq === -1 ? undefined : arg.slice(eq + 1);
}
