import { LatheError } from "./lathe-error.ts";

/** A session cannot be opened or used: a bad id, a closed session, a root mismatch. */
export class SessionError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("session", message, options);
  }
}
