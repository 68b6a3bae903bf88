import type { Readable } from "node:stream";
import type { McpServerLog } from "./mcp-server-log.ts";

/**
 * How long a stopped server's stderr may stay open before its log stops following it: its pipe
 * drains after the process ended (a helper process it started may still hold it).
 */
export const STDERR_DRAIN_MS = 2000;

/** A stdio server's stderr, followed into its log. */
export interface StderrFeed {
  /** Settles once the stream has ended: all it carried has gone to the log. */
  readonly ended: Promise<void>;
  /** Where the server's stderr goes from now on (a kept server's next engine has a log of its own). */
  logTo(log: McpServerLog): void;
  /**
   * Once the server is stopped: resolves when its stderr has ended, so everything it wrote is in
   * its log (then flushed), or after `ms` without an end, when the log says so and what comes
   * later is read and left out. Either way, nothing of it is written to the log afterwards.
   */
  finish(ms?: number): Promise<void>;
}

/** Follow `stream` (none: a server without one, such as an HTTP server) into `log`. */
export function feedStderr(stream: Readable | null | undefined, log: McpServerLog): StderrFeed {
  let sink: McpServerLog | undefined = log;
  if (!stream) return { ended: Promise.resolve(), logTo: () => undefined, finish: () => Promise.resolve() };
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => sink?.write(chunk));
  stream.on("error", (err) => sink?.note(`reading the server's stderr failed: ${err.message}`));
  const ended = new Promise<void>((resolve) => {
    if (stream.readableEnded || stream.destroyed) resolve();
    stream.once("end", () => resolve());
    stream.once("close", () => resolve());
  });
  return {
    ended,
    logTo: (next) => {
      if (sink) sink = next;
    },
    async finish(ms = STDERR_DRAIN_MS) {
      const drained = await settlesWithin(ended, ms);
      const last = sink;
      sink = undefined;
      if (!drained)
        last?.note(
          `its stderr was still open ${ms / 1000} s after it stopped (a process it started may hold it): what comes later is not logged`,
        );
      await last?.flush();
    },
  };
}

/**
 * Whether `done` settles within `ms`. The wait holds no process open: a CLI whose work is over
 * exits without waiting out a server's stderr.
 */
export async function settlesWithin(done: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  return settled;
}
