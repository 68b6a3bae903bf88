// A command on a fresh pseudo-terminal, as the spawner runs it for the host's runInPty
// (builtin/pty-runner.ts): bash in its own session and process group, optionally inside the OS
// sandbox, its output streamed to the host with backpressure both ways.
import type { IPty } from "node-pty";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import { confineWhenAsked } from "./confine-when-asked.ts";
import { abortedBeforeStart } from "./spawner-failure.ts";
import type { PtyRequest, SpawnerEvent } from "./spawner-protocol.ts";

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
/** Output sent to the host but not yet written into the channel past which reading pauses. */
const CHANNEL_HIGH_BYTES = 1024 * 1024;
/**
 * Output is gathered for up to BATCH_MS, or until there is BATCH_BYTES of it, into one message to
 * the host: fewer, larger messages took the IPC hop's throughput from ~78 to ~100 MB/s here (the
 * host reading the pty itself: ~120). The exit sends what is left at once.
 */
const BATCH_BYTES = 1024 * 1024;
const BATCH_MS = 2;
/** End-of-file for programs that open the terminal itself (/dev/tty) to ask for input. */
const EOF_CHAR = "\x04";

/** How the spawner talks back about one request. */
export interface RequestChannel {
  /** Send an event; `sent` runs once it is written into the channel. */
  send(event: SpawnerEvent, sent?: () => void): void;
}

/** A running request, as the spawner's dispatcher steers it. */
export interface RunningRequest {
  pause(): void;
  resume(): void;
  /** The host is gone: end everything it started now, without grace. */
  kill(): void;
}

/** Signal a whole process group; false when none of its processes is left to signal. */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => signalProcess(-pgid, signal);

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
 * Start one pty request: wrap it when it is to be confined, spawn bash on a fresh terminal, and
 * stream its output to the host (`data` events, then one `exit` after the last byte). Aborting
 * `signal` stops its whole process group (and its sandbox). Throws RequestFailure when the
 * sandbox cannot wrap it, or when aborted first.
 */
export async function startPty(
  request: PtyRequest,
  signal: AbortSignal,
  channel: RequestChannel,
): Promise<RunningRequest> {
  const { id } = request;
  const confined = await confineWhenAsked(request.script, request.confine, signal);
  let pty: IPty;
  try {
    if (signal.aborted) throw abortedBeforeStart();
    // The terminal library (a native addon) loads with the first command, not with the spawner.
    const { spawn } = await import("node-pty");
    pty = spawn("/bin/bash", ["--noprofile", "--norc", "-c", confined ? confined.line : request.script], {
      name: "dumb",
      cols: COLUMNS,
      rows: ROWS,
      cwd: request.cwd,
      env: request.env,
      encoding: null,
    });
  } catch (err) {
    confined?.release();
    throw err;
  }
  const pgid = pty.pid;
  channel.send({ type: "started", id, pid: pgid });
  // In the sandbox the command has no controlling terminal to open, so there is nobody to tell.
  if (!confined) pty.write(EOF_CHAR);

  // Backpressure: reading stops while the host asks (its consumer is full) or while too much
  // output waits to go into the channel, but never once bash has exited.
  let hostPaused = false;
  let inChannel = 0;
  let paused = false;
  let drained = false;
  let exitWatch: NodeJS.Timeout | undefined;
  const drainIfExited = (): boolean => {
    if (!drained && !signalProcess(pgid, 0)) drained = true;
    if (drained) update();
    return drained;
  };
  function update(): void {
    const want = !drained && (hostPaused || inChannel > CHANNEL_HIGH_BYTES);
    if (want === paused) return;
    if (want && drainIfExited()) return;
    paused = want;
    if (want) {
      pty.pause();
      exitWatch = setInterval(drainIfExited, EXIT_POLL_MS);
    } else {
      clearInterval(exitWatch);
      pty.resume();
    }
  }

  // A sandbox runs in a session of its own, out of the group's reach: it goes with its launcher.
  const onAbort = (): void => {
    if (confined) killSandboxTree(pgid);
    killGroup(pgid);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // Output is sent in batches (see BATCH_MS).
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (batchBytes === 0) return;
    const chunk = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch, batchBytes);
    const bytes = batchBytes;
    batch = [];
    batchBytes = 0;
    inChannel += bytes;
    channel.send({ type: "data", id, chunk }, () => {
      inChannel -= bytes;
      update();
    });
    update();
  };
  // With encoding null node-pty hands over Buffers; its typings only know strings.
  const data = pty.onData((text) => {
    const chunk = text as unknown as Buffer;
    batch.push(chunk);
    batchBytes += chunk.length;
    if (batchBytes >= BATCH_BYTES) flush();
    else flushTimer ??= setTimeout(flush, BATCH_MS);
  });
  const exit = pty.onExit(({ exitCode, signal: killedBy }) => {
    signal.removeEventListener("abort", onAbort);
    clearInterval(exitWatch);
    data.dispose();
    exit.dispose();
    killGroup(pgid);
    flush();
    const removed = confined?.release() ?? [];
    channel.send({ type: "exit", id, exitCode: killedBy ? 128 + killedBy : exitCode, removed });
  });
  return {
    pause() {
      hostPaused = true;
      update();
    },
    resume() {
      hostPaused = false;
      update();
    },
    kill() {
      if (confined) killSandboxTree(pgid);
      signalGroup(pgid, "SIGKILL");
    },
  };
}
