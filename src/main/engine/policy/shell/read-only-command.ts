import path from "node:path";
import { lookedUpNames } from "./looked-up-programs.ts";
import { relativeLookupReason } from "./relative-path-lookup.ts";
import { READ_ONLY_COMMANDS } from "./read-only-commands.ts";
import { unseenReadReason } from "./read-only-paths.ts";
import type { ShellAnalysis, SimpleCommand } from "./shell-types.ts";
import { shown } from "./shown-text.ts";

/**
 * Whether a bash command provably only reads. Without an OS sandbox, this is the line between
 * what may run unattended and what needs a person: nothing the analysis cannot see through, no
 * redirection that writes a file, and every command on a positive list of readers, with none of
 * the options that would make it write or run something else.
 */

/** Folders whose programs are the system's own (`/usr/bin/ls` is `ls`; `./ls` is not). */
const SYSTEM_BIN = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"]);

/** Redirection targets that are streams, not files. */
const STREAMS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"]);

/** The program a command runs when Lathe can name it: looked up on PATH, or a system folder's. */
export function programOf(command: SimpleCommand): string | undefined {
  if (!command.name.includes("/")) return command.name;
  const normal = path.posix.normalize(command.name);
  return SYSTEM_BIN.has(path.posix.dirname(normal)) ? path.posix.basename(normal) : undefined;
}

function commandReason(command: SimpleCommand, searchPath: string | undefined): string | undefined {
  const program = programOf(command);
  if (program === undefined)
    return `it runs ${shown(command.name)}, a program whose effects Lathe does not know`;
  const check = READ_ONLY_COMMANDS.get(program);
  if (check === undefined) return `"${program}" is not among the commands known to only read`;
  const reason = check(command);
  if (reason !== undefined) return reason;
  for (const { name, byShell } of lookedUpNames(program, command)) {
    const lookup = relativeLookupReason(name, searchPath, byShell);
    if (lookup !== undefined)
      return name === program ? lookup : `"${program}" here starts "${name}" itself: ${lookup}`;
  }
  return undefined;
}

/**
 * Undefined when the analysed command provably only reads; otherwise a short reason why not.
 * Used when no OS sandbox contains bash: then every call that is not provably read-only needs a
 * person, in every approval mode. `searchPath`: the PATH bash will look names up in (Lathe's
 * own, which bash inherits).
 */
export function provablyReadOnly(
  analysis: ShellAnalysis,
  searchPath: string | undefined = process.env.PATH,
): string | undefined {
  const opaque = analysis.opaque[0];
  if (opaque !== undefined) return `it cannot be fully seen: ${opaque}`;
  for (const redirection of analysis.redirections) {
    if (redirection.access !== "write") continue;
    if (redirection.target.literal && STREAMS.has(redirection.target.text) && redirection.operator !== "<>")
      continue;
    return `it writes to ${shown(redirection.target.text)} (${shown(redirection.source)})`;
  }
  for (const command of analysis.commands) {
    const reason = commandReason(command, searchPath);
    if (reason !== undefined) return reason;
  }
  // Every command is a known reader: now what each reads must be seen.
  for (const command of analysis.commands) {
    const reason = unseenReadReason(programOf(command) as string, command);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
