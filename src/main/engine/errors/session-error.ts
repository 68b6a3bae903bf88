import { LatheError } from "./lathe-error.ts";

/**
 * A session cannot be opened or used: a bad id, a closed session, a root mismatch (`session`),
 * or a run going on in it, here or in another process (`session_busy`: try again later).
 */
export class SessionError extends LatheError {
  constructor(message: string, options?: ErrorOptions & { busy?: boolean }) {
    super(options?.busy === true ? "session_busy" : "session", message, options);
  }
}
