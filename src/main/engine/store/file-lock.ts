import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { processExists } from "../spawner/process-exists.ts";
import { sleepSync } from "./sleep-sync.ts";

export interface FileLockTiming {
  /** How long to wait for another process to let go before giving up. */
  waitMs: number;
  /** A lock older than this is taken to be left over, whoever holds it (a hung process). */
  staleMs: number;
}

const TIMING: FileLockTiming = { waitMs: 5_000, staleMs: 30_000 };

/** The locks this process holds now (a lock file in its name that it does not hold is left over). */
const heldHere = new Set<string>();

/** Another process held the lock for longer than Lathe waits. */
export class FileLockTimeout extends Error {
  override readonly name = "FileLockTimeout";
}

/**
 * Run `fn` while holding `<file>.lock`, so that read-modify-write cycles of `file` by several
 * Lathe processes do not lose each other's changes. The lock file is created exclusively and
 * holds the owner's pid; one whose owner has ended (kill -9) or that is older than `staleMs` is
 * removed and taken. Waits up to `waitMs`, then throws FileLockTimeout naming the holder.
 */
export function withFileLock<T>(file: string, fn: () => T, timing: FileLockTiming = TIMING): T {
  const lock = `${file}.lock`;
  if (heldHere.has(lock)) throw new Error(`${lock} is already held here: withFileLock does not nest.`);
  const deadline = Date.now() + timing.waitMs;
  for (let attempt = 1; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = holderOf(lock);
      if (holder.leftOver(timing.staleMs)) {
        unlinkSafely(lock);
        continue;
      }
      if (Date.now() >= deadline) {
        throw new FileLockTimeout(
          `${file} is locked by another Lathe process (pid ${holder.pid ?? "unknown"}) that is changing it; try again in a moment, or remove ${lock} if no Lathe is running.`,
        );
      }
      sleepSync(Math.min(2 * attempt, 25));
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    heldHere.add(lock);
    try {
      return fn();
    } finally {
      heldHere.delete(lock);
      unlinkSafely(lock);
    }
  }
}

function holderOf(lock: string): { pid: number | undefined; leftOver(staleMs: number): boolean } {
  let pid: number | undefined;
  let age = 0;
  try {
    const text = readFileSync(lock, "utf8").trim();
    pid = /^\d+$/.test(text) ? Number(text) : undefined;
    age = Date.now() - statSync(lock).mtimeMs;
  } catch (err) {
    // Gone meanwhile: the next attempt takes it.
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { pid: undefined, leftOver: () => false };
    throw err;
  }
  return {
    pid,
    // A lock without a pid yet is being written: only its age can make it left over.
    leftOver: (staleMs) =>
      age > staleMs || (pid !== undefined && (pid === process.pid || !processExists(pid))),
  };
}

function unlinkSafely(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
