import path from "node:path";
import { isRunnable } from "../../spawner/program-lookup.ts";
import { shown } from "./shown-text.ts";

/**
 * Where a command name is looked up before bash runs it: a read-only name must run the system's
 * program. A PATH entry that is empty or relative (`.`, `bin`, `node_modules/.bin`, a trailing
 * `:`) is looked in relative to the folder the command runs in, the workspace, where the model
 * can put a program of any name; when such an entry comes before the folder holding the real
 * program, `cat` may run that one, unconfined when there is no sandbox.
 */

/** Bash's own commands: PATH is not searched for them. */
const BASH_BUILTINS = new Set(
  `echo printf test [ true false : pwd cd pushd popd dirs export declare typeset local readonly unset set
  shopt read wait exit return break continue shift getopts let ulimit umask hash times jobs caller help type
  command builtin`.split(/\s+/),
);

/** Whether `name` is a bash builtin, which bash runs without looking PATH up. */
export function isBashBuiltin(name: string): boolean {
  return BASH_BUILTINS.has(name);
}

/**
 * Why `name` (no `/` in it) may not run the system's program of that name with this PATH;
 * undefined when the first folder that could hold it is an absolute one. `byShell`: bash runs
 * the name itself (a builtin stays a builtin), rather than a program such as xargs or env.
 */
export function relativeLookupReason(
  name: string,
  searchPath: string | undefined,
  byShell: boolean,
): string | undefined {
  if ((byShell && BASH_BUILTINS.has(name)) || searchPath === undefined) return undefined;
  for (const entry of searchPath.split(":")) {
    if (!path.isAbsolute(entry))
      return `PATH holds ${shown(entry === "" ? "(an empty entry)" : entry)}, a folder relative to where the command runs, before any folder with "${name}" in it, so "${name}" may run a program from the workspace`;
    if (isRunnable(path.join(entry, name))) return undefined;
  }
  return undefined;
}
