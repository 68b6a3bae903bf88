import os from "node:os";
import path from "node:path";
import { errorMessage } from "../errors/error-message.ts";
import { RotatingLogFile } from "../logs/rotating-log-file.ts";
import { sweepStaleTempFolders } from "./stale-temp-sweep.ts";

let started: Promise<void> | undefined;

/** Where the start-up sweep says what it removed or could not: `$LATHE_HOME/logs/temp-sweep.log`. */
export function tempSweepLogFile(latheHome: string): string {
  return path.join(latheHome, "logs", "temp-sweep.log");
}

/**
 * Sweep the OS temp folder of stale Lathe temp folders (stale-temp-sweep.ts), once per process:
 * the first engine to start begins it and does not wait for it; `Engine.close` waits for it so a
 * CLI never exits half-way through a removal. Nothing is printed: what it removed, and what it
 * could not (with why), goes to the log file, one line each. Rejects only when that log cannot
 * be written.
 */
export function sweepTempFoldersAtStart(latheHome: string): Promise<void> {
  started ??= sweepAndLog(latheHome);
  return started;
}

async function sweepAndLog(latheHome: string): Promise<void> {
  const dir = os.tmpdir();
  const at = (): string => new Date().toISOString();
  let lines: string[];
  try {
    const result = await sweepStaleTempFolders(dir);
    lines = [
      ...result.removed.map(
        (folder) => `${at()} removed ${folder}: the Lathe process that made it has gone\n`,
      ),
      ...result.failed.map(
        ({ path: folder, error }) =>
          `${at()} could not remove ${folder} (its process has gone): ${errorMessage(error)}\n`,
      ),
    ];
  } catch (error) {
    // The temp folder itself cannot be listed: said in the log like any other failure.
    lines = [`${at()} could not look for stale temp folders in ${dir}: ${errorMessage(error)}\n`];
  }
  if (lines.length === 0) return;
  const log = new RotatingLogFile({ file: tempSweepLogFile(latheHome), maxBytes: 256 * 1024, keep: 1 });
  try {
    log.write(lines.join(""));
  } finally {
    log.close();
  }
}
