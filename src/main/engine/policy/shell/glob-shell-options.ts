/**
 * bash options (shopt, bash -O) that change what a glob matches. Lathe expands globs as bash does
 * by default (hidden names only for a pattern starting with `.`, case kept, `**` as `*`), so after
 * `shopt -s dotglob` a `*` inside a link to the home folder also matches `.ssh`, and after
 * `nocaseglob` `.SS[H]` does: a command that sets one is not judged by Lathe's expansion.
 */
export const GLOB_SHELL_OPTIONS: ReadonlySet<string> = new Set([
  "dotglob",
  "nocaseglob",
  "globstar",
  "extglob",
  "globasciiranges",
  "globskipdots",
]);

/** Why setting the shell option `name` changes what later globs match; undefined when it does not. */
export function globOptionReason(tool: string, name: string): string | undefined {
  return GLOB_SHELL_OPTIONS.has(name)
    ? `"${tool}" with ${name} changes what every later glob matches (hidden names, case, ** across folders), which Lathe expands as bash does by default; write the names, or a pattern starting with "." for hidden ones`
    : undefined;
}

/**
 * bash flags that turn brace expansion off: after `set +B` (or `+o braceexpand`) `cat {a,b}`
 * reads the file named `{a,b}` (a committed link so named reads the key), while Lathe checks `a`
 * and `b`, the names it expands it to. (`set -f` needs nothing: a glob's own text is checked as a
 * path too.) `flags` is one option word of `set` or `bash` (`-eu`, `+B`), `option` a `-o`/`+o`
 * value; `spelled` the words as the command wrote them, when not `tool flags option`.
 */
export function braceExpansionOffReason(
  tool: string,
  flags: string,
  option?: string,
  spelled = `${tool} ${flags}${option === undefined ? "" : ` ${option}`}`,
): string | undefined {
  const off =
    flags[0] === "+" && (option === undefined ? flags.slice(1).includes("B") : option === "braceexpand");
  return off
    ? `"${spelled}" turns brace expansion off, so {a,b} names the file {a,b}, not the names a and b Lathe checks; leave the option out`
    : undefined;
}
