import type { IPty } from "node-pty";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";

/** How a command ended: `exitCode` is 128 + the signal number when a signal killed it. */
interface PtyExit {
  exitCode: number;
}

interface PtyCommand {
  /** The shell command line, run by `bash --noprofile --norc -c`. */
  command: string;
  /**
   * Run it this way instead: a shell line (for `bash -c`) that runs `ptyScript(command)` inside
   * the OS sandbox, and the environment that needs. The pty, the process-group kill and
   * backpressure stay the same; the sandbox ends the whole tree inside with its first process.
   */
  confined?: { line: string; env: Record<string, string> };
  /** Canonical absolute working directory. */
  cwd: string;
  /** Aborting kills the command's whole process group. */
  signal: AbortSignal;
  /** Called with every chunk of raw output (stdout and stderr combined, as the terminal gives them). */
  onData(chunk: Buffer): void;
}

/** A command running on its own pseudo-terminal, in its own session and process group. */
export interface PtyProcess {
  readonly pid: number;
  /** Settles once the command has exited and every byte it wrote has been delivered. */
  readonly exited: Promise<PtyExit>;
  /** Stop reading output for a while (backpressure); see EXIT_POLL_MS. */
  pause(): void;
  resume(): void;
}

/** Columns wide enough that programs do not wrap their lines for the terminal. */
const COLUMNS = 500;
const ROWS = 50;
/** How long a process group has after SIGTERM before it gets SIGKILL. */
const KILL_GRACE_MS = 1000;
/**
 * node-pty discards whatever it has not read 200 ms after bash exits, so while output is paused
 * this often checks whether bash is still there; once it is gone the rest is read regardless
 * (no more than the terminal's buffers hold: nothing new can be written after the hang-up).
 */
const EXIT_POLL_MS = 20;

/**
 * Prepended to every command: a newline is `\n` rather than `\r\n` (the terminal's newline
 * translation costs 20× the throughput on line-heavy output), and stdin is /dev/null so a
 * program that reads it (`cat` with no file) sees end-of-file instead of waiting for a user.
 * Both sit on the command's first line, so bash's line numbers in messages stay right.
 */
const PRELUDE = "stty -onlcr 2>/dev/null; exec </dev/null; ";

/** What bash runs for a command: the prelude, then the command on the same first line. */
export function ptyScript(command: string): string {
  return PRELUDE + command;
}
/** End-of-file for programs that open the terminal itself (/dev/tty) to ask for input. */
const EOF_CHAR = "\x04";

/**
 * Variables of the host's environment that would make bash run code or read a command line
 * differently from what the shell policy analysed: a file sourced before the command
 * (`BASH_ENV`, `ENV`), exported functions (`BASH_FUNC_name%%`), hooks (`PROMPT_COMMAND`, `PS4`
 * with xtrace), options (`SHELLOPTS`, `BASHOPTS`), word splitting and globbing (`IFS`,
 * `GLOBIGNORE`) and where `cd` goes (`CDPATH`). The command starts without them.
 */
const SHELL_STEERING =
  /^(BASH_ENV|ENV|CDPATH|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|GLOBIGNORE|BASH_FUNC_.*)$/;

/** The environment bash starts with: the host's, less what steers the shell (above). */
function commandEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !SHELL_STEERING.test(key)) env[key] = value;
  // The terminal's real size is the pty's; stale values from the host would contradict it.
  delete env.COLUMNS;
  delete env.LINES;
  return {
    ...env,
    TERM: "dumb",
    NO_COLOR: "1",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    LATHE: "1",
  };
}

function kill(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (err) {
    // ESRCH: gone. EPERM: only zombies are left (macOS), or the id now belongs to someone else.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ESRCH" || code === "EPERM") return false;
    throw err;
  }
}

/** Signal a whole process group; false when none of its processes is left to signal. */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => kill(-pgid, signal);

/**
 * Stop everything the command started: SIGTERM to its process group (the pty child is a session
 * leader, so its pid is the group id; background jobs stay in the group), then SIGKILL to what
 * is left after a short grace.
 */
function killGroup(pgid: number): void {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const timer = setTimeout(() => {
    if (signalGroup(pgid, 0)) signalGroup(pgid, "SIGKILL");
  }, KILL_GRACE_MS);
  timer.unref();
}

/**
 * Run one command line under bash on a fresh pseudo-terminal (resolves once it has started). Output arrives through `onData`;
 * `exited` settles after the last byte (node-pty holds the exit back until the terminal is
 * drained). When the command ends, or the signal aborts, its whole process group is stopped, so
 * no background job outlives the call.
 */
export async function runInPty(options: PtyCommand): Promise<PtyProcess> {
  options.signal.throwIfAborted();
  // The terminal library (a native addon) loads with the first command, not with Lathe.
  const { spawn: spawnPty } = await import("node-pty");
  options.signal.throwIfAborted();
  const argv = options.confined
    ? ["--noprofile", "--norc", "-c", options.confined.line]
    : ["--noprofile", "--norc", "-c", ptyScript(options.command)];
  const pty: IPty = spawnPty("/bin/bash", argv, {
    name: "dumb",
    cols: COLUMNS,
    rows: ROWS,
    cwd: options.cwd,
    env: { ...commandEnv(), ...options.confined?.env },
    encoding: null,
  });
  const pgid = pty.pid;
  // In the sandbox the command has no controlling terminal to open, so there is nobody to tell.
  if (!options.confined) pty.write(EOF_CHAR);

  // Backpressure: stop reading while the consumer is full, but never once bash has exited.
  let paused = false;
  let drained = false;
  let exitWatch: NodeJS.Timeout | undefined;
  const resume = (): void => {
    if (!paused) return;
    paused = false;
    clearInterval(exitWatch);
    pty.resume();
  };
  const drainIfExited = (): boolean => {
    if (!drained && !kill(pgid, 0)) drained = true;
    if (drained) resume();
    return drained;
  };
  const pause = (): void => {
    if (paused || drainIfExited()) return;
    paused = true;
    pty.pause();
    exitWatch = setInterval(drainIfExited, EXIT_POLL_MS);
  };

  // A sandbox runs in a session of its own, out of the group's reach: it goes with its launcher.
  const onAbort = (): void => {
    if (options.confined) killSandboxTree(pgid);
    killGroup(pgid);
  };
  options.signal.addEventListener("abort", onAbort, { once: true });
  // With encoding null node-pty hands over Buffers; its typings only know strings.
  const data = pty.onData((chunk) => options.onData(chunk as unknown as Buffer));

  const exited = new Promise<PtyExit>((resolve) => {
    const exit = pty.onExit(({ exitCode, signal }) => {
      options.signal.removeEventListener("abort", onAbort);
      clearInterval(exitWatch);
      data.dispose();
      exit.dispose();
      killGroup(pgid);
      resolve({ exitCode: signal ? 128 + signal : exitCode });
    });
  });
  return { pid: pgid, exited, pause, resume };
}
