import { lstatSync } from "node:fs";
import path from "node:path";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { givesDashAsFile, readsStdinGivenNoFile } from "./shell/dash-operand.ts";
import { pathsIn } from "./shell/directory-tracking.ts";
import { programOf } from "./shell/read-only-command.ts";
import { shown } from "./shell/shown-text.ts";
import { expandTilde } from "./shell/tilde-path.ts";

// A `-` given to a program that reads it as a file name (`ls -`, `du -`, `find -`) is checked as
// the path it is when the call is decided (bash-plan.ts): a link named `-` to ~/.ssh is refused.
// When there is no such file then, the command can only read one that something makes before it
// runs (another call, a process of the user's), which nothing would check with the sandbox off;
// a read-only command makes none itself. So that command needs a person.

/**
 * Why one of `commands` (a read-only command line's) would read a file named `-` that does not
 * exist yet in `base` (where the command starts) or a folder it changes to; undefined when none.
 */
export function missingDashFile(commands: readonly SimpleCommand[], base: string): string | undefined {
  for (const command of commands) {
    const program = programOf(command);
    if (program === undefined || !givesDashAsFile(program, command)) continue;
    // A folder only known at run time is refused by the analysis already.
    if (command.runsIn?.unknown !== undefined) continue;
    for (const dir of pathsIn(command.runsIn, ".")) {
      const file = path.join(path.resolve(base, expandTilde(dir)), "-");
      const stdin = readsStdinGivenNoFile(program)
        ? `give ${program} no file, and it reads it`
        : "pipe into a program that reads it";
      if (lstatSync(file, { throwIfNoEntry: false }) === undefined)
        return `"${program}" reads "-" as a file name, not as its standard input, and there is no file ${shown(file)} now: one made before the command runs would be read without a check (for standard input, ${stdin}; for a file, name it ./- once it exists)`;
    }
  }
  return undefined;
}
