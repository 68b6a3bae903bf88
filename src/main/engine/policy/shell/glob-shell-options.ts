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
