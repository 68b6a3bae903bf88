import { AsyncLocalStorage } from "node:async_hooks";
import { Console } from "node:console";
import { constants } from "node:os";
import { PassThrough, Writable } from "node:stream";
import type { JobRequest, StreamLook } from "./daemon-frames.ts";
import { errorMessage } from "../../engine/light.ts";

/** How the daemon talks to the `lathe` process whose command a job runs. */
export interface JobChannel {
  /** Send bytes for the client's stdout or stderr; resolves once they are handed to the socket. */
  write(stream: "stdout" | "stderr", bytes: Buffer): Promise<void>;
  /** Ask the client for its stdin (only when the command reads it). */
  wantStdin(): void;
}

/** What the client reports while the job runs. */
export interface JobInput {
  stdin(bytes: Buffer): void;
  stdinEnd(): void;
  /** A signal the client got (SIGINT, SIGTERM). */
  signal(name: NodeJS.Signals): void;
  /** The reader of the client's stdout has gone. */
  stdoutClosed(): void;
}

/** How the job ended. */
export interface JobEnd {
  code: number;
  /**
   * Whether this process can take another command. Not after a command called process.exit or
   * was ended by a signal it did not handle: a process of its own would have ended there, and
   * whatever that command left running must end with it.
   */
  reusable: boolean;
}

const SIGNALS = new Set<NodeJS.Signals>(["SIGINT", "SIGTERM", "SIGHUP"]);

/** Whether `name` is a signal a client may forward. */
export function isForwardedSignal(name: string): name is NodeJS.Signals {
  return SIGNALS.has(name as NodeJS.Signals);
}

/** The exit code of a process ended by `signal`, as a shell reports it. */
function killedBy(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

function look<T extends object>(stream: T, shape: StreamLook): T {
  return Object.assign(stream, {
    isTTY: shape.isTTY,
    ...(shape.isTTY && shape.columns !== undefined ? { columns: shape.columns } : {}),
  });
}

/** The streams one job's code sees as its process's own. */
interface JobWorld {
  stdout: Writable;
  stderr: Writable;
  console: Console;
}

/**
 * Which job the running code belongs to: whatever a command started (timers, promises, callbacks)
 * carries its job along. A command can leave work behind that outlives it — a grace timer that
 * calls process.exit, a late log line. In a process of its own that work would have died with the
 * process; here it must not end, or write into, the command that runs after it.
 */
const jobContext = new AsyncLocalStorage<JobWorld>();

/** process.exit as the daemon itself has it (outside every job); set when the first job starts. */
let daemonExit: typeof process.exit | undefined;

/**
 * process.exit between jobs: a call left over from a job that has ended does nothing (its own
 * process would be gone already); any other is the daemon's own.
 */
const exitBetweenJobs = ((code?: number | string | null) => {
  if (jobContext.getStore() !== undefined) return undefined as never;
  return (daemonExit as typeof process.exit)(code);
}) as typeof process.exit;

/** process.kill as the daemon itself has it; set when the first job starts. */
let daemonKill: typeof process.kill | undefined;

/** Signals whose default action leaves a process running. */
const HARMLESS = new Set(["SIGCHLD", "SIGCONT", "SIGURG", "SIGWINCH"]);

/** The name of `signal` as process.kill takes it (a name or a number; SIGTERM when omitted). */
function signalName(signal: string | number | undefined): string | undefined {
  if (signal === undefined) return "SIGTERM";
  if (typeof signal === "string") return signal;
  return Object.entries(constants.signals).find(([, number]) => number === signal)?.[0];
}

/**
 * process.kill between jobs: a signal an ended job's leftover code raises at this process does
 * nothing (that job's own process would be gone already); any other call is the daemon's own.
 */
const killBetweenJobs = ((pid: number, signal?: string | number) => {
  if (pid === process.pid && signal !== 0 && jobContext.getStore() !== undefined) return true;
  return (daemonKill as typeof process.kill)(pid, signal);
}) as typeof process.kill;

/**
 * Run one command as if this process were the client's own `lathe` process: its arguments,
 * folder, environment and standard streams (with their terminal look) are the client's while it
 * runs, and everything is put back after. `run` is the CLI's main. Only one job runs at a time.
 */
export async function runJob(
  request: JobRequest,
  channel: JobChannel,
  run: (argv: readonly string[]) => Promise<number>,
): Promise<{ input: JobInput; ended: Promise<JobEnd> }> {
  const saved = {
    env: { ...process.env },
    cwd: process.cwd(),
    stdout: Object.getOwnPropertyDescriptor(process, "stdout") as PropertyDescriptor,
    stderr: Object.getOwnPropertyDescriptor(process, "stderr") as PropertyDescriptor,
    stdin: Object.getOwnPropertyDescriptor(process, "stdin") as PropertyDescriptor,
    console: Object.getOwnPropertyDescriptor(globalThis, "console") as PropertyDescriptor,
  };
  if (process.exit !== exitBetweenJobs) daemonExit = process.exit;
  if (process.kill !== killBetweenJobs) daemonKill = process.kill;

  // Each write goes to the channel as it is made, so stdout and stderr reach the client in the
  // order the command wrote them (a terminal shows both: an answer's last words must not come after
  // the line that ends the run). Waiting for one stream's bytes to be sent before taking its next
  // would hold that stream back while the other went ahead. The writes queue on the socket
  // instead; commands do not wait for a stream to drain anyway.
  const output = (name: "stdout" | "stderr"): Writable =>
    look(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          void channel.write(name, chunk);
          done();
        },
      }),
      request[name],
    );
  const stdout = output("stdout");
  const stderr = output("stderr");
  let stdin: PassThrough | undefined;
  const stdinOf = (): PassThrough => {
    if (!stdin) {
      stdin = look(new PassThrough(), request.stdin);
      channel.wantStdin();
    }
    return stdin;
  };

  let finish!: (end: JobEnd) => void;
  const ended = new Promise<JobEnd>((resolve) => (finish = resolve));
  let done = false;
  const end = (result: JobEnd): void => {
    if (done) return;
    done = true;
    restore();
    finish(result);
  };

  function restore(): void {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
    try {
      process.chdir(saved.cwd);
    } catch {
      // The daemon's own folder (its data folder) is gone; the next job sets its own anyway.
    }
    Object.defineProperty(process, "stdout", saved.stdout);
    Object.defineProperty(process, "stderr", saved.stderr);
    Object.defineProperty(process, "stdin", saved.stdin);
    Object.defineProperty(globalThis, "console", saved.console);
    process.exit = exitBetweenJobs;
    process.kill = killBetweenJobs;
  }

  const world: JobWorld = { stdout, stderr, console: new Console({ stdout, stderr }) };
  /** What the calling code sees: this job's world, or the world of the ended job it was left over from. */
  const seen = (): JobWorld => jobContext.getStore() ?? world;

  // The client's world, in place of the daemon's.
  process.chdir(request.cwd);
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, request.env);
  Object.defineProperty(process, "stdout", {
    configurable: true,
    enumerable: true,
    get: () => seen().stdout,
  });
  Object.defineProperty(process, "stderr", {
    configurable: true,
    enumerable: true,
    get: () => seen().stderr,
  });
  Object.defineProperty(process, "stdin", { configurable: true, enumerable: true, get: stdinOf });
  Object.defineProperty(globalThis, "console", {
    configurable: true,
    enumerable: false,
    get: () => seen().console,
  });
  // A command that ends its process ends this job; the daemon then ends too (see JobEnd.reusable).
  // A call left over from an earlier job does nothing: that job has ended, and this one is not its.
  process.exit = ((code?: number | string | null) => {
    if (seen() !== world) return undefined as never;
    const value = Number(code ?? process.exitCode ?? 0);
    end({ code: Number.isInteger(value) ? value & 0xff : 1, reusable: false });
  }) as typeof process.exit;

  /**
   * A signal for the command's process: a command that listens for it stops its work itself; one
   * that does not would have been killed by it.
   */
  const deliver = (name: NodeJS.Signals): void => {
    if (process.listenerCount(name) > 0) process.emit(name as "SIGINT", name);
    else if (!HARMLESS.has(name)) end({ code: killedBy(name), reusable: false });
  };
  // A signal the command raises at its own process (a second Ctrl-C ends `lathe run` so; a library
  // re-raises one it caught) is this job's, as one from the client is: raised for real it would
  // end the daemon, and the command's client would only hear that the daemon went away.
  process.kill = ((pid: number, signal?: string | number) => {
    if (pid !== process.pid || signal === 0) return (daemonKill as typeof process.kill)(pid, signal);
    if (seen() !== world) return true;
    const name = signalName(signal);
    if (name === undefined) return (daemonKill as typeof process.kill)(pid, signal);
    deliver(name as NodeJS.Signals);
    return true;
  }) as typeof process.kill;

  // What the client reports reaches the command as its own: whatever the command does in answer
  // (a grace timer after Ctrl-C, a reader's callbacks) belongs to this job.
  const inJob =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void =>
      jobContext.run(world, () => fn(...args));
  const input: JobInput = {
    stdin: inJob((bytes: Buffer) => void stdin?.write(bytes)),
    stdinEnd: inJob(() => void stdin?.end()),
    signal: inJob(deliver),
    stdoutClosed: inJob(() => {
      const gone = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      stdout.destroy(gone);
    }),
  };

  jobContext
    .run(world, () => run(request.argv))
    .then(
      (code) => end({ code, reusable: true }),
      (err: unknown) => {
        // main reports its own failures; this is one of the daemon's, shown as the launcher would.
        const message = errorMessage(err);
        void channel.write("stderr", Buffer.from(`error: ${message}\n`));
        end({ code: 1, reusable: false });
      },
    );
  return { input, ended };
}
