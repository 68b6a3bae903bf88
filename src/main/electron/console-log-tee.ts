import { format } from "node:util";

/** Where the tee writes: anything with a synchronous `write` (a RotatingLogFile). */
export interface LogSink {
  write(text: string): void;
}

const LEVELS = ["debug", "info", "log", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

/**
 * Copies everything the main process writes through `console` into the log file, one timestamped
 * line per call (`2026-11-25T09:41:21.000Z warn  text…`), while the terminal still gets it. If the
 * file cannot be written, that is said once on the terminal and only the terminal is used from
 * then on (the app keeps running). Returns the function that puts `console` back.
 */
export function teeConsoleToLog(
  target: Console,
  sink: LogSink,
  now: () => Date = () => new Date(),
): () => void {
  const originals = new Map<Level, Console[Level]>();
  let broken = false;
  const terminalError = target.error.bind(target);
  for (const level of LEVELS) {
    originals.set(level, target[level]);
    const original = target[level].bind(target) as (...args: unknown[]) => void;
    target[level] = (...args: unknown[]) => {
      original(...args);
      if (broken) return;
      try {
        sink.write(`${now().toISOString()} ${level.padEnd(5)} ${format(...args)}\n`);
      } catch (error) {
        broken = true;
        terminalError("lathe: the log file cannot be written; logging to the terminal only:", error);
      }
    };
  }
  return () => {
    for (const [level, original] of originals) target[level] = original;
  };
}
