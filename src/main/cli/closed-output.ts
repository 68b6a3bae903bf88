/**
 * The reader of the CLI's output can go away at any time (`lathe audit | head`, a closed
 * terminal). Node reports that as an `error` event (EPIPE) on the stream, which nobody listens
 * to by default, so the process died with a stack trace. Here a closed stdout or stderr only
 * stops the writing: later writes are dropped, listeners (a running `lathe run`) are told so
 * they can stop their work, and the command ends with its usual exit code, quietly.
 */

type Stream = NodeJS.WritableStream & { destroyed?: boolean };

const closed = new WeakSet<Stream>();
const watched = new WeakSet<Stream>();
const listeners = new Set<(stream: Stream) => void>();

/** Errors that only mean the reader has gone. */
const READER_GONE = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ECONNRESET"]);

/** Whether the reader of `stream` has gone: writing to it is pointless. */
export function isOutputClosed(stream: Stream): boolean {
  return closed.has(stream) || stream.destroyed === true;
}

/**
 * Treat errors on `stream` as its reader going away (once per stream). Any other error is a
 * failure of the output too: the stream is closed all the same, and `onOtherError` is told.
 */
export function watchOutput(stream: Stream, onOtherError?: (error: Error) => void): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    const first = !closed.has(stream);
    closed.add(stream);
    if (!READER_GONE.has(error.code ?? "")) onOtherError?.(error);
    if (first) for (const listener of [...listeners]) listener(stream);
  });
}

/** Be told when a watched stream's reader goes away; returns the way to stop listening. */
export function onOutputClosed(listener: (stream: Stream) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Write unless the reader has gone; errors are the `error` listener's business. */
export function writeIfOpen(stream: Stream, text: string): void {
  if (isOutputClosed(stream)) return;
  stream.write(text);
}
