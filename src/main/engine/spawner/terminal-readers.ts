// Which of a command's processes wait for someone to type on its terminal. Nobody ever types
// into the terminal Lathe gives a command (see spawner-pty.ts), so such a process waits for ever:
// a pager (`less`, `more`), an editor, a prompt that reads the terminal rather than stdin.
import { readFileSync, statSync } from "node:fs";
import { processTree } from "../sandbox/process-tree.ts";

/** The numbers of read(2), pread64(2) and readv(2), by architecture (Linux). */
const READ_CALLS: Partial<Record<string, readonly number[]>> = { x64: [0, 17, 19], arm64: [63, 65, 67] };

export interface TerminalReader {
  pid: number;
  /** Its program's name, as the kernel knows it (`less`). */
  program: string;
}

/** The device number of the terminal at `path` (a pty's `/dev/pts/N`); undefined when it has none. */
export function terminalDevice(path: unknown): number | undefined {
  if (typeof path !== "string" || process.platform !== "linux") return undefined;
  try {
    const stats = statSync(path);
    return stats.isCharacterDevice() ? stats.rdev : undefined;
  } catch {
    return undefined;
  }
}

/** The file descriptor `pid` is blocked reading; undefined when it is in no read (or gone). */
function blockedRead(pid: number, calls: readonly number[]): number | undefined {
  let text: string;
  try {
    // "<call> <arg1 in hex> …" while in a system call, "running" otherwise.
    text = readFileSync(`/proc/${pid}/syscall`, "utf8");
  } catch {
    // Gone, or not ours to look into (ptrace restricted): not known to wait, so the timeout stays
    // what ends it.
    return undefined;
  }
  const [call, fd] = text.trim().split(" ");
  if (call === undefined || fd === undefined || !calls.includes(Number(call))) return undefined;
  const n = Number.parseInt(fd, 16);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The processes of the tree under `root` (the command's, inside its sandbox too) now blocked
 * reading the terminal whose device is `device` (Linux; none elsewhere).
 */
export function terminalReaders(root: number, device: number): TerminalReader[] {
  const calls = READ_CALLS[process.arch];
  if (process.platform !== "linux" || calls === undefined) return [];
  const out: TerminalReader[] = [];
  for (const pid of processTree(root)) {
    const fd = blockedRead(pid, calls);
    if (fd === undefined) continue;
    try {
      if (statSync(`/proc/${pid}/fd/${fd}`).rdev !== device) continue;
      out.push({ pid, program: readFileSync(`/proc/${pid}/comm`, "utf8").trim() });
    } catch {
      // It ended, or closed that file, meanwhile.
    }
  }
  return out;
}
