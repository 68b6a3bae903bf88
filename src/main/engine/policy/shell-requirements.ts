import path from "node:path";
import type { ArgPattern, ShellRunRequirement } from "../tools/requirement-set.ts";
import type { SimpleCommand } from "./shell/shell-analysis.ts";

/** Folders whose programs a `cmd` names by their bare name (`/usr/bin/git` is `git`). */
export const SYSTEM_BIN_DIRS: ReadonlySet<string> = new Set([
  "/bin",
  "/usr/bin",
  "/usr/local/bin",
  "/sbin",
  "/usr/sbin",
  "/usr/local/sbin",
]);

/**
 * The name a requirement's `cmd` is compared with: `/usr/bin/curl` is `curl`, but a program in
 * any other folder keeps its path, so `/tmp/x/git` never passes for `git`.
 */
export function requirementName(command: SimpleCommand): string {
  if (!command.name.includes("/")) return command.name;
  const dir = path.posix.dirname(path.posix.normalize(command.name));
  return SYSTEM_BIN_DIRS.has(dir) ? path.posix.basename(command.name) : command.name;
}

/** A `..` path segment: what would climb out of a prefix like `docs/`. */
const PARENT_SEGMENT = /(^|[/\\])\.\.([/\\]|$)/;

function argMatches(pattern: ArgPattern, word: SimpleCommand["args"][number]): boolean {
  if (typeof pattern === "string") return word.literal && word.text === pattern;
  if ("wildcard" in pattern) return true;
  // `{prefix: "docs/"}` means below docs/: `docs/../../x` starts with it but is not below it.
  return (
    word.literal &&
    word.text.startsWith(pattern.prefix) &&
    !PARENT_SEGMENT.test(word.text.slice(pattern.prefix.length))
  );
}

/** Whether a simple command is covered by one of the declared shell requirements. */
export function matchesShellRequirement(
  command: SimpleCommand,
  requirements: readonly ShellRunRequirement[],
): boolean {
  const name = requirementName(command);
  return requirements.some((req) => {
    if (req.cmd !== name && req.cmd !== "*") return false;
    if (!req.args) return true;
    if (req.args.length !== command.args.length) return false;
    return req.args.every((p, i) => argMatches(p, command.args[i] as SimpleCommand["args"][number]));
  });
}
