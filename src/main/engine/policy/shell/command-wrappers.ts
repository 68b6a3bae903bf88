import { PROGRAM_WRAPPERS } from "./program-wrappers.ts";
import { SHELL_BUILTINS } from "./shell-builtins.ts";
import { SHELL_RUNNERS } from "./shell-code-runners.ts";
import type { ArgvItem } from "./shell-types.ts";
import { VARIABLE_BUILTINS } from "./variable-builtins.ts";
import type { Handler, WrapperOutcome } from "./wrapper-outcome.ts";
export { assignmentOutcomes, type WrapperOutcome } from "./wrapper-outcome.ts";

/** Shell builtins: only their bare name runs them (`/bin/eval` is not `eval`). */
const BUILTINS: ReadonlyMap<string, Handler> = new Map([...SHELL_BUILTINS, ...VARIABLE_BUILTINS]);

/** Programs, recognised by their file name wherever they live (`/usr/bin/env` is `env`). */
const PROGRAMS: ReadonlyMap<string, Handler> = new Map([...PROGRAM_WRAPPERS, ...SHELL_RUNNERS]);

/** The program part of a command name (`/usr/bin/env` → `env`). */
function programName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/**
 * Whether a command name is one whose arguments mean more to the shell than arguments: it runs
 * other commands or code (sudo, env, eval, sh …), sets variables (read, declare …) or changes
 * the folder (cd).
 */
export function isWrapper(name: string): boolean {
  return BUILTINS.has(name) || PROGRAMS.has(programName(name));
}

/**
 * What a command implies beyond itself: the command a wrapper runs, shell code it evaluates,
 * variables it sets, or why that cannot be known. Empty for an ordinary command.
 */
export function unwrapCommand(name: string, args: ArgvItem[]): WrapperOutcome[] {
  const program = programName(name);
  const handler = BUILTINS.get(name) ?? PROGRAMS.get(program);
  return handler === undefined ? [] : handler(program, args);
}
