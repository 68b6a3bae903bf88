import { readFileSync, readlinkSync } from "node:fs";

/**
 * When a process started, as a number that tells two processes of one pid apart: on Linux the
 * `starttime` of `/proc/<pid>/stat` (field 22, clock ticks since boot). `undefined` when it cannot
 * be known: another OS, no `/proc`, or no such process (any more). Synchronous: a /proc file is
 * made by the kernel on the spot and never waits for a disk (a few µs, against some 80 µs for
 * the thread-pool round trips of an asynchronous read).
 */
export function processStartTime(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch (err) {
    // No such process, or /proc hides it: its start is unknown, which callers treat as "cannot tell".
    if (unknowable(err)) return undefined;
    throw err;
  }
  return startTimeOf(text);
}

/** The start time in the text of a `/proc/<pid>/stat` (undefined when it is not one). */
export function startTimeOf(stat: string): number | undefined {
  // Field 2 is the command name in parentheses, which may hold spaces and ")": fields 3 on
  // follow the LAST ")". Field 22 is the 20th of them.
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const field = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/)[19];
  const value = Number(field);
  return field !== undefined && /^\d+$/.test(field) && Number.isSafeInteger(value) && value > 0
    ? value
    : undefined;
}

/** Who this process is, as its temp folders' names record it (see temp-folder-name.ts). */
export interface ProcessIdentity {
  pid: number;
  /** processStartTime's figure; 0 when unknown. */
  start: number;
  /** The inode of the pid namespace the pid belongs to (Linux); 0 when unknown. */
  namespace: number;
}

let own: ProcessIdentity | undefined;

/** This process's identity (read once: two small reads of `/proc/self` on Linux). */
export function ownIdentity(): ProcessIdentity {
  own ??= { pid: process.pid, start: ownStart(), namespace: ownNamespace() };
  return own;
}

function ownStart(): number {
  if (process.platform !== "linux") return 0;
  try {
    return startTimeOf(readFileSync("/proc/self/stat", "latin1")) ?? 0;
  } catch (err) {
    // No /proc: the start stays unknown, and no later run will sweep this process's folders.
    if (unknowable(err)) return 0;
    throw err;
  }
}

function ownNamespace(): number {
  if (process.platform !== "linux") return 0;
  try {
    // "pid:[4026531836]"
    const inode = Number(/^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1]);
    return Number.isSafeInteger(inode) && inode > 0 ? inode : 0;
  } catch (err) {
    // No /proc: the namespace stays unknown, and no later run will sweep this process's folders.
    if (unknowable(err)) return 0;
    throw err;
  }
}

/** The errors of a /proc file that is not there or not ours to read (not of a failing machine). */
function unknowable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ESRCH" || code === "EACCES" || code === "EPERM";
}
