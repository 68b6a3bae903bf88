import { LatheError } from "./lathe-error.ts";

/** The OS sandbox could not confine a process, so the process was not started. */
export class SandboxError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("sandbox", message, options);
  }
}
