import { writeSync } from "node:fs";
import { CommanderError } from "commander";
import { CliError } from "./cli-error.ts";
import { writeIfOpen } from "./closed-output.ts";
import { ExitCode, type ExitCodeValue } from "./exit-codes.ts";
import { describeError } from "./output.ts";

/**
 * The line `lathe run --json` ends with when it fails without a `finish` event (a bad --model, an
 * unknown agent, no model chosen, a session that cannot be resumed, a model server not running):
 * an `error` event as a run prints one, plus the exit code, so a script reading stdout learns
 * why instead of reading nothing. The same words go to stderr for a person.
 */
export interface RunJsonFailure {
  type: "error";
  message: string;
  exitCode: ExitCodeValue;
}

/** Whether these arguments of `lathe run` ask for JSON: `--json` before any `--`. */
export function asksForJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

/**
 * The failure line for an error that ends the command, or undefined when it is no failure
 * (commander showing the help or the version).
 */
export function runJsonFailure(err: unknown): RunJsonFailure | undefined {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return undefined;
    // Commander's own message starts with "error: ", as stderr shows it.
    return { type: "error", message: err.message.replace(/^error: /, ""), exitCode: ExitCode.usage };
  }
  if (err instanceof CliError) return { type: "error", message: err.message, exitCode: err.exitCode };
  return { type: "error", message: describeError(err, false), exitCode: ExitCode.failure };
}

/** Print the failure line of `err` on stdout, if it is a failure (`now`: before an exit). */
export function printRunJsonFailure(err: unknown, options: { now?: boolean } = {}): void {
  const failure = runJsonFailure(err);
  if (failure === undefined) return;
  const line = `${JSON.stringify(failure)}\n`;
  if (options.now !== true) {
    writeIfOpen(process.stdout, line);
    return;
  }
  // The process ends right after: written synchronously, as a stream may not flush in time.
  try {
    writeSync(1, line);
  } catch {
    // stdout is closed: the exit code and stderr say it.
  }
}
