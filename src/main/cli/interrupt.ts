import { ExitCode } from "./exit-codes.ts";
import { onOutputClosed } from "./closed-output.ts";

/** How long a stopped command may take to wind down before the process ends anyway. */
const STOP_GRACE_MS = 800;

/**
 * Ctrl-C, SIGTERM, or the reader of stdout going away (`lathe run … | head`) stop the work of
 * `controller`: it is aborted, and if the work has not wound down within `graceMs` (a native
 * library holding on past an abort, a server slow to close) the process exits with 1 anyway —
 * everything recorded so far is already committed, so the session stays resumable. A second
 * Ctrl-C ends the process at once. Returns the way to stop listening.
 */
export function stopOnInterrupt(controller: AbortController, graceMs = STOP_GRACE_MS): () => void {
  const stop = (reason: string): void => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(reason));
    setTimeout(() => process.exit(ExitCode.failure), graceMs).unref();
  };
  const onSigint = (): void => stop("interrupted (SIGINT)");
  const onSigterm = (): void => stop("terminated (SIGTERM)");
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigterm);
  const stopListening = onOutputClosed((stream) => {
    if (stream === process.stdout) stop("the output was closed");
  });
  return () => {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    stopListening();
  };
}
