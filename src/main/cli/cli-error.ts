import { ExitCode, type ExitCodeValue } from "./exit-codes.ts";

/** A failure the CLI reports as one plain message on stderr (no stack) with a chosen exit code. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;

  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failure) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
