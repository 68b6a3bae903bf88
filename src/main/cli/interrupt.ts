import { writeSync } from "node:fs";
import { ExitCode } from "./exit-codes.ts";
import { onOutputClosed } from "./closed-output.ts";
import { removeFilesBeingWritten } from "../engine/light.ts";

/** How long a stopped command may take to wind down before the process ends anyway. */
const STOP_GRACE_MS = 800;

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Before the process ends in a hurry: remove the temporary files of writes it is in the middle
 * of (the file they were to replace stays as it was), saying on stderr any it could not.
 */
function leaveNoTemporaryFile(): void {
  for (const problem of removeFilesBeingWritten()) {
    try {
      writeSync(2, `error: a temporary file could not be removed: ${problem}\n`);
    } catch {
      // stderr is closed: nothing more can be said.
    }
  }
}
type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Listens for Ctrl-C (SIGINT) and SIGTERM until the returned function is called: the first one
 * calls `onStop`, the next one ends the process at once, as the signal would have.
 *
 * The listeners stay until then, rather than going once they have fired: a library that makes a
 * signal no one else listens to kill the process (signal-exit, which node-llama-cpp loads for
 * its lock files, re-raises it) would otherwise end the process the moment the first signal came,
 * before the work was stopped and recorded.
 */
export function onStopSignals(onStop: (signal: StopSignal) => void): () => void {
  let stopping = false;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = (): void => {
      if (!stopping) {
        stopping = true;
        onStop(signal);
        return;
      }
      stopListening();
      leaveNoTemporaryFile();
      process.kill(process.pid, signal);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  const stopListening = (): void => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
  return stopListening;
}

interface StopOptions {
  /** How long the work may take to wind down once stopped (default 0.8 s). */
  graceMs?: number;
  /**
   * What the person is told when the process has to end before the work wound down, as the
   * command would have said it (without "error: "): the state it leaves and the way on;
   * undefined when the command has said it already and only its clean-up held on.
   */
  lastWord?: () => string | undefined;
}

/** Said when the work did not wind down in time and the command has no better word. */
const DEFAULT_LAST_WORD = "stopped before the work wound down; what was recorded so far is kept.";

/**
 * Ctrl-C, SIGTERM, or the reader of stdout going away (`lathe run … | head`) stop the work of
 * `controller`: it is aborted, and if the work has not wound down within the grace time (a
 * native library holding on past an abort, a server slow to close, a slow machine still loading
 * the command's modules) the process exits with 1 anyway, after saying so on stderr —
 * everything recorded so far is already committed, so the session stays resumable. A second
 * Ctrl-C ends the process at once. Returns the way to stop listening.
 */
export function stopOnInterrupt(controller: AbortController, options: StopOptions = {}): () => void {
  const graceMs = options.graceMs ?? STOP_GRACE_MS;
  const stop = (reason: string): void => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(reason));
    setTimeout(() => {
      const word = options.lastWord ? options.lastWord() : DEFAULT_LAST_WORD;
      try {
        // Synchronous: the process ends on the next line, before a stream would flush.
        if (word !== undefined) writeSync(2, `error: ${word}\n`);
      } catch {
        // stderr is closed: the exit code alone says it.
      }
      leaveNoTemporaryFile();
      process.exit(ExitCode.failure);
    }, graceMs).unref();
  };
  const stopSignals = onStopSignals((signal) =>
    stop(signal === "SIGINT" ? "interrupted (SIGINT)" : "terminated (SIGTERM)"),
  );
  const stopOutput = onOutputClosed((stream) => {
    if (stream === process.stdout) stop("the output was closed");
  });
  return () => {
    stopSignals();
    stopOutput();
  };
}
