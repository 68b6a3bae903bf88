// A program run without a shell, its output collected, as the spawner runs it for a plugin's
// `runtime.shell.run` (plugins/bridge-shell.ts) and for a user's pre-tool hook
// (policy/user-hook.ts): input on stdin, a timeout, an output cap, abort; with `group`, in a
// process group of its own that the timeout and an abort end whole. Stopping it is SIGTERM, then
// SIGKILL after a grace (terminate.ts), so that what it runs can clean up after itself.
import { spawn, type ChildProcess } from "node:child_process";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import { confineWhenAsked } from "./confine-when-asked.ts";
import { stopOnBreach } from "./stop-on-breach.ts";
import { stopProgram, type CancelKill } from "./terminate.ts";
import { abortedBeforeStart } from "./spawner-failure.ts";
import type { RequestChannel, RunningRequest } from "./request-channel.ts";
import type { ExecEnd, ExecRequest } from "./spawner-protocol.ts";

/** SIGKILL the program, or its whole process group when it runs in one of its own: the host is gone. */
function killProgram(child: ChildProcess, request: ExecRequest): void {
  if (child.pid !== undefined) signalProcess(request.group === true ? -child.pid : child.pid, "SIGKILL");
}

/**
 * How long the output of a program that has exited is still read while something it started
 * keeps it open (`notify &` in a hook): what it wrote itself is in the pipe by then.
 */
const EXITED_OUTPUT_GRACE_MS = 300;

/** How a program ended, and what it wrote (each stream cut at the request's cap). */
type Finish = (end: ExecEnd, stdout: Uint8Array, stderr: Uint8Array) => void;

/**
 * Run a program with execFile's contract (the caps, the timeout, the abort, and the end it
 * reports), with `group` in a process group of its own, which execFile cannot start (it drops
 * `detached`): then the timeout, an abort or too much output end the whole group, so nothing the
 * program started outlives it; without, they end the program.
 */
function runProgram(
  file: string,
  args: readonly string[],
  request: ExecRequest,
  confined: boolean,
  signal: AbortSignal,
  finish: Finish,
): ChildProcess {
  const child = spawn(file, args, {
    cwd: request.cwd,
    env: request.env,
    detached: request.group === true,
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  let stoppedBy: "timeout" | "abort" | "overflow" | undefined;
  let cancelKill: CancelKill | undefined;
  const stop = (why: NonNullable<typeof stoppedBy>): void => {
    if (stoppedBy !== undefined || child.pid === undefined) return;
    stoppedBy = why;
    cancelKill = stopProgram(child.pid, { group: request.group === true, confined });
  };
  const collected = (stream: NodeJS.ReadableStream | null): Buffer[] => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream?.on("data", (chunk: Buffer) => {
      const room = request.maxBytes - size;
      if (room > 0) chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += chunk.length;
      if (size > request.maxBytes) stop("overflow");
    });
    return chunks;
  };
  const stdout = collected(child.stdout);
  const stderr = collected(child.stderr);
  const timer = setTimeout(() => stop("timeout"), request.timeoutMs);
  const onAbort = (): void => stop("abort");
  signal.addEventListener("abort", onAbort, { once: true });
  // Its answer counts once it has exited: what it left running that still holds the output is
  // not waited for, and no longer read after a short while (nor ended: only a timeout or an abort
  // ends what a program started, and a timeout cannot come once it has exited).
  let straggling: NodeJS.Timeout | undefined;
  child.on("exit", () => {
    clearTimeout(timer);
    // What it started in its group may still be there: only the program's own pid may be reused.
    if (request.group !== true) cancelKill?.();
    straggling = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, EXITED_OUTPUT_GRACE_MS);
  });
  let done = false;
  const end = (outcome: ExecEnd): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    clearTimeout(straggling);
    signal.removeEventListener("abort", onAbort);
    finish(outcome, Buffer.concat(stdout), Buffer.concat(stderr));
  };
  // Not started at all (no such program, no permission): there is no exit to wait for.
  child.on("error", (err: NodeJS.ErrnoException) => {
    if (child.pid === undefined) end({ code: err.code ?? null, name: err.name, killed: false, failed: true });
  });
  child.on("close", (code, killedBy) => {
    if (stoppedBy === "abort") end({ code: "ABORT_ERR", name: "AbortError", killed: true, failed: true });
    else if (stoppedBy === "overflow")
      end({ code: "ERR_CHILD_PROCESS_STDIO_MAXBUFFER", name: "RangeError", killed: true, failed: true });
    else if (stoppedBy === "timeout") end({ code: null, killed: true, failed: true });
    else end({ code: killedBy ? null : code, killed: false, failed: killedBy !== null || code !== 0 });
  });
  return child;
}

/**
 * Start one exec request: wrapped in the OS sandbox when `confine` is given (then bash runs the
 * sandbox's launcher with `line`), else `file` with `args`; with `group`, in a process group of
 * its own (see runProgram). Replies with one `exec-done`. Aborting `signal` kills it (its whole
 * sandbox first). Throws RequestFailure when the sandbox cannot wrap it, or when aborted first.
 */
export async function startExec(
  request: ExecRequest,
  signal: AbortSignal,
  channel: RequestChannel,
): Promise<RunningRequest> {
  const { id } = request;
  const confined = await confineWhenAsked(request.line, request.confine, signal);
  if (signal.aborted) {
    confined?.release();
    throw abortedBeforeStart();
  }
  const breach = stopOnBreach(confined);
  const [file, args] = confined ? ["/bin/bash", ["-c", confined.line]] : [request.file, request.args];
  const finish: Finish = (end, stdout, stderr) => {
    const removed = confined?.release() ?? [];
    const stoppedBecause = breach.reason;
    void (confined?.disarmRepos() ?? Promise.resolve("")).then((planted) =>
      channel.send({
        type: "exec-done",
        id,
        end,
        stdout,
        stderr,
        removed,
        ...(planted === "" ? {} : { planted }),
        ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
      }),
    );
  };
  const child = runProgram(file, args, request, confined !== undefined, signal, finish);
  // A program that exits without reading its input makes the write fail (EPIPE): its answer still counts.
  child.stdin?.on("error", () => undefined);
  child.stdin?.end(request.stdin ?? "");
  if (child.pid !== undefined) channel.send({ type: "started", id, pid: child.pid });
  const kill = (): void => {
    if (child.pid === undefined) return;
    if (confined) killSandboxTree(child.pid);
    killProgram(child, request);
  };
  breach.arm(kill);
  return { kill };
}
