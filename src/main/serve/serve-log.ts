import { describeError } from "../cli/output.ts";

/**
 * Say on `lathe serve`'s terminal that something failed which no page was told of (a request, a
 * connection, an answer that could not be sent): one line with the error's message, as every
 * Lathe command prints errors; the stack trace only with LATHE_DEBUG=1.
 */
export function logServeError(what: string, error: unknown): void {
  process.stderr.write(`lathe serve: ${what}: ${describeError(error)}\n`);
}
