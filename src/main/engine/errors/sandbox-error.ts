import { LatheError } from "./lathe-error.ts";

/** The OS sandbox could not confine a process, so the process was not started. */
export class SandboxError extends LatheError {
  /** Set when the command itself is the problem: too long for the wrapped command line. */
  readonly commandTooLong: boolean;

  constructor(message: string, options?: ErrorOptions & { commandTooLong?: boolean }) {
    super("sandbox", message, options);
    this.commandTooLong = options?.commandTooLong === true;
  }
}
