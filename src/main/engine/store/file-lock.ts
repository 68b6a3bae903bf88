import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, linkSync, openSync, readSync, unlinkSync, writeFileSync } from "node:fs";
import { processExists } from "../spawner/process-exists.ts";
import { sleepSync } from "./sleep-sync.ts";

export interface FileLockTiming {
  /** How long to wait for another process to let go before giving up. */
  waitMs: number;
  /** A lock older than this is taken to be left over, whoever holds it (a hung process). */
  staleMs: number;
}

const TIMING: FileLockTiming = { waitMs: 5_000, staleMs: 30_000 };

/**
 * A lock file with no pid is left by an older Lathe killed between creating it and writing its
 * pid (this one creates it with its pid in one step): past this age nobody is writing it.
 */
const EMPTY_LEFT_OVER_MS = 2_000;

/** The locks this process holds now (a lock file in its name that it does not hold is left over). */
const heldHere = new Set<string>();

/** Another process held the lock for longer than Lathe waits. */
export class FileLockTimeout extends Error {
  override readonly name = "FileLockTimeout";
}

/**
 * Run `fn` while holding `<file>.lock`, so that read-modify-write cycles of `file` by several
 * Lathe processes do not lose each other's changes. The lock file appears with the owner's pid
 * in it (written to a file of its own first, then linked to the lock's name, which fails if the
 * lock exists), so no lock is ever seen empty. One whose owner has ended (kill -9) or that is
 * older than `staleMs` is removed and taken, by one process at a time, which looks again before
 * it removes it (see removeLeftOver). Waits up to `waitMs`, then throws FileLockTimeout naming
 * the holder.
 */
export function withFileLock<T>(file: string, fn: () => T, timing: FileLockTiming = TIMING): T {
  const lock = `${file}.lock`;
  if (heldHere.has(lock)) throw new Error(`${lock} is already held here: withFileLock does not nest.`);
  const deadline = Date.now() + timing.waitMs;
  for (let attempt = 1; ; attempt++) {
    if (createHolding(lock)) break;
    const holder = holderOf(lock);
    if (holder === undefined) continue; // gone meanwhile: try again at once
    if (leftOver(holder, timing.staleMs)) {
      if (removeLeftOver(lock, timing.staleMs)) continue;
    } else if (Date.now() >= deadline) {
      throw new FileLockTimeout(
        `${file} is locked by another Lathe process (pid ${holder.pid ?? "unknown"}) that is changing it; try again in a moment, or remove ${lock} if no Lathe is running.`,
      );
    }
    sleepSync(Math.min(2 * attempt, 25));
  }
  heldHere.add(lock);
  try {
    return fn();
  } finally {
    heldHere.delete(lock);
    unlinkSafely(lock);
  }
}

/**
 * Create `lock` holding this process's pid, unless it exists: whether it was created. The pid
 * goes into a file of this process's own first, then that file is linked to the lock's name,
 * which is atomic and fails when the name is taken: the lock never exists without its pid.
 */
function createHolding(lock: string): boolean {
  const draft = `${lock}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(draft, String(process.pid), { mode: 0o600, flag: "wx" });
  try {
    linkSync(draft, lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    unlinkSafely(draft);
  }
}

interface LockHolder {
  /** The pid the lock holds; undefined when it holds none (an older Lathe's, killed mid-write). */
  pid: number | undefined;
  ageMs: number;
}

/** Who holds the lock now, read from one open file (its pid and its age agree); undefined: none. */
function holderOf(lock: string): LockHolder | undefined {
  let fd: number;
  try {
    fd = openSync(lock, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const buffer = Buffer.alloc(32);
    const text = buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0)).trim();
    return {
      pid: /^\d+$/.test(text) ? Number(text) : undefined,
      ageMs: Date.now() - fstatSync(fd).mtimeMs,
    };
  } finally {
    closeSync(fd);
  }
}

function leftOver(holder: LockHolder, staleMs: number): boolean {
  if (holder.ageMs > staleMs) return true;
  if (holder.pid === undefined) return holder.ageMs > EMPTY_LEFT_OVER_MS;
  return holder.pid === process.pid || !processExists(holder.pid);
}

/**
 * Remove a lock found left over, unless it no longer is: whether this process removed it. Two
 * processes finding the same left-over lock would otherwise both remove it — the second removing
 * the lock the first had just taken — and both would hold it. So removing takes `<lock>.break`
 * first (created as the lock is; taken, another process is removing it: wait), then looks at the
 * lock again: a lock taken anew meanwhile has a live holder and stays. A `.break` outlives its
 * owner only if that was killed in the instant it holds it: one whose owner is gone, or older
 * than `staleMs`, is removed.
 */
function removeLeftOver(lock: string, staleMs: number): boolean {
  const breaker = `${lock}.break`;
  if (!createHolding(breaker)) {
    const other = holderOf(breaker);
    if (other !== undefined && leftOver(other, staleMs)) unlinkSafely(breaker);
    return false;
  }
  try {
    const holder = holderOf(lock);
    if (holder === undefined) return true;
    if (!leftOver(holder, staleMs)) return false;
    unlinkSafely(lock);
    return true;
  } finally {
    unlinkSafely(breaker);
  }
}

function unlinkSafely(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
