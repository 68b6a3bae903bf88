// A command on a fresh pseudo-terminal, as the spawner runs it for the host's runInPty
// (builtin/pty-runner.ts): bash in its own session and process group, optionally inside the OS
// sandbox, its output written here, straight to the sidecar file past the cap (with
// backpressure), and only its head sent to the host: the host never holds the bulk of it, and it
// crosses no channel.
import type { IPty } from "node-pty";
import { undoneNotice } from "../sandbox/process-sandbox.ts";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import { CappedOutput } from "./capped-output.ts";
import { confineWhenAsked } from "./confine-when-asked.ts";
import { terminalDevice, terminalReaders } from "./terminal-readers.ts";
import { abortedBeforeStart } from "./spawner-failure.ts";
import { stopProgram, terminate, type CancelKill } from "./terminate.ts";
import { stopOnBreach } from "./stop-on-breach.ts";
import { typeEndOfFile } from "./type-end-of-file.ts";
import type { PtyRequest } from "./spawner-protocol.ts";
import type { RequestChannel, RunningRequest } from "./request-channel.ts";
import { errorMessage } from "../errors/error-message.ts";

/** Columns wide enough that programs do not wrap their lines for the terminal. */
const COLUMNS = 500;
const ROWS = 50;
/**
 * node-pty discards whatever it has not read 200 ms after bash exits, so while output is paused
 * this often checks whether bash is still there; once it is gone the rest is read regardless
 * (no more than the terminal's buffers hold: nothing new can be written after the hang-up).
 */
const EXIT_POLL_MS = 20;
/**
 * How often a command that printed nothing since the last look is checked for a process
 * waiting to read its terminal; one seen waiting at two looks in a row (with nothing printed in
 * between) is stopped, since nobody will ever type there.
 */
const INPUT_POLL_MS = 1000;

/** Hands over the sidecar's path when the output first passes the cap (tests slow it down). */
export type SidecarOpener = (file: string) => Promise<string>;

/** Signal a whole process group; false when none of its processes is left to signal. */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => signalProcess(-pgid, signal);

/**
 * Stop everything the command started: SIGTERM to its process group (the pty child is a session
 * leader, so its pid is the group id; background jobs stay in the group), then SIGKILL to what
 * is left after a short grace.
 */
function killGroup(pgid: number): void {
  terminate(-pgid);
}

/**
 * Start one pty request: wrap it when it is to be confined, spawn bash on a fresh terminal, and
 * capture its output (see CappedOutput), then send one `exit` with the head after the last byte.
 * Aborting `signal` stops its whole process group (and its sandbox) and drops the sidecar;
 * reaching `stopAfterMs` stops it the same way but keeps its output.
 * Throws RequestFailure when the sandbox cannot wrap it, or when aborted first.
 */
export async function startPty(
  request: PtyRequest,
  signal: AbortSignal,
  channel: RequestChannel,
  openSidecar: SidecarOpener = async (file) => file,
): Promise<RunningRequest> {
  const { id } = request;
  const confined = await confineWhenAsked(request.script, request.confine, signal);
  const breach = stopOnBreach(confined, request.output.root);
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
  // In the sandbox the command has no controlling terminal to open, so there is nobody to tell.
  if (!confined) {
    try {
      typeEndOfFile(pty);
    } catch (err) {
      killGroup(pgid);
      throw err;
    }
  }
  channel.send({ type: "started", id, pid: pgid });

  // Backpressure: reading stops while the sidecar cannot take more, but never once bash has exited.
  let outputPaused = false;
  let paused = false;
  let drained = false;
  let exitWatch: NodeJS.Timeout | undefined;
  const drainIfExited = (): boolean => {
    if (!drained && !signalProcess(pgid, 0)) drained = true;
    if (drained) update();
    return drained;
  };
  function update(): void {
    const want = !drained && outputPaused;
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

  // A sandbox runs in a session of its own, out of the group's reach: its command's processes get
  // SIGTERM, and the whole tree SIGKILL after the same grace (see terminateSandboxed). Its
  // launcher is not signalled before: its end would SIGKILL everything inside at once.
  let sandboxKill: CancelKill | undefined;
  const onAbort = (): void => {
    if (!confined) killGroup(pgid);
    else sandboxKill ??= stopProgram(pgid, { group: true, confined: true });
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // Its deadline stops it the same way, but what it printed is still wanted.
  let timedOut = false;
  const deadline =
    request.stopAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          clearInterval(inputWatch);
          timedOut = true;
          onAbort();
        }, request.stopAfterMs);
  // So does waiting for keys (a pager, a prompt on the terminal), which would last till then.
  let outputEvents = 0;
  let waitingForInput: string | undefined;
  const terminal = terminalDevice((pty as unknown as { ptsName?: unknown }).ptsName);
  let lastLook = { outputEvents: -1, readers: new Set<number>() };
  const inputWatch =
    terminal === undefined || request.stopAfterMs === undefined
      ? undefined
      : setInterval(() => {
          if (outputEvents !== lastLook.outputEvents) {
            lastLook = { outputEvents, readers: new Set() };
            return;
          }
          const readers = terminalReaders(pgid, terminal);
          const stuck = readers.find(({ pid }) => lastLook.readers.has(pid));
          if (stuck) {
            clearInterval(inputWatch);
            clearTimeout(deadline);
            waitingForInput = stuck.program;
            onAbort();
            return;
          }
          lastLook = { outputEvents, readers: new Set(readers.map(({ pid }) => pid)) };
        }, INPUT_POLL_MS);
  // A path its sandbox held changed under it: stopped at once (see stop-on-breach.ts).
  breach.arm(() => {
    clearTimeout(deadline);
    clearInterval(inputWatch);
    killSandboxTree(pgid);
  });
  const { maxBytes, maxSidecarBytes, sidecarPath, root } = request.output;
  // Past the largest output kept, the command is stopped as at its deadline: it would only fill the disk.
  let outputCapped = false;
  const output = new CappedOutput({
    maxBytes,
    ...(maxSidecarBytes === undefined ? {} : { maxTotalBytes: maxSidecarBytes }),
    overflow: () => {
      if (outputCapped) return;
      outputCapped = true;
      onAbort();
    },
    openSidecar: () => openSidecar(sidecarPath),
    pause: () => {
      outputPaused = true;
      update();
    },
    resume: () => {
      outputPaused = false;
      update();
    },
  });
  // With encoding null node-pty hands over Buffers; its typings only know strings.
  const data = pty.onData((text) => {
    outputEvents++;
    output.write(text as unknown as Buffer);
  });
  const exit = pty.onExit(({ exitCode, signal: killedBy }) => {
    signal.removeEventListener("abort", onAbort);
    clearTimeout(deadline);
    clearInterval(inputWatch);
    // Everything inside went with the launcher, whose pid may now be given to someone else.
    sandboxKill?.();
    clearInterval(exitWatch);
    data.dispose();
    exit.dispose();
    killGroup(pgid);
    const removed = confined?.release() ?? [];
    const code = killedBy ? 128 + killedBy : exitCode;
    const aborted = signal.aborted;
    if (aborted) output.discard();
    // What it planted in git repositories is taken out whether or not anyone reads the output.
    void (confined?.disarmRepos() ?? Promise.resolve("")).then((planted) => {
      if (aborted) {
        channel.send({ type: "exit", id, exitCode: code, removed });
        return;
      }
      const notice = undoneNotice(root, removed) + planted;
      if (notice) output.writeNote(notice);
      const stoppedBecause = breach.reason;
      const ended = {
        type: "exit",
        id,
        exitCode: code,
        removed,
        ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
        ...(timedOut ? { timedOut } : {}),
        ...(outputCapped ? { outputCapped } : {}),
        ...(waitingForInput === undefined ? {} : { waitingForInput }),
      } as const;
      void output.finish().then(
        (captured) => channel.send({ ...ended, output: captured }),
        (err: unknown) => channel.send({ ...ended, output: { error: errorMessage(err) } }),
      );
    });
  });
  return {
    kill() {
      clearTimeout(deadline);
      clearInterval(inputWatch);
      sandboxKill?.();
      if (confined) killSandboxTree(pgid);
      signalGroup(pgid, "SIGKILL");
      // Now: the spawner exits next, and the sidecar it was writing is nobody's any more.
      output.discard();
    },
  };
}
