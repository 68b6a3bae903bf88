import { isOutputClosed } from "./closed-output.ts";

/**
 * Write to a stream and resolve once the text is handed to the OS, so exiting loses nothing.
 * When the reader has gone (`| head`) the text is dropped: see closed-output.ts.
 */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  if (isOutputClosed(stream)) return Promise.resolve();
  return new Promise((resolve) => {
    // An error here is also an `error` event, which closed-output.ts handles.
    stream.write(text, () => resolve());
  });
}

export function writeStdout(text: string): Promise<void> {
  return write(process.stdout, text);
}

export function writeStderr(text: string): Promise<void> {
  return write(process.stderr, text);
}

/** Whether `LATHE_DEBUG=1` asks for stack traces with errors. */
function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LATHE_DEBUG === "1";
}

/** An error as the CLI shows it: the message, plus the stack when debugging. */
export function describeError(err: unknown, debug = debugEnabled()): string {
  if (!(err instanceof Error)) return String(err);
  return debug && err.stack ? err.stack : err.message;
}
