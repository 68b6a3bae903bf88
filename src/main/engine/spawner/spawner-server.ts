// A long-running server (an MCP stdio server) as the spawner starts it: the spawner forks it,
// so the host never does (a fork blocks the calling thread for as long as copying a large
// process's page tables takes), then hands its three pipes to the host, which talks to the
// server over them directly. The spawner keeps only the process: its exit, its signals, and
// what its sandbox holds until it ends.
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import { confineWhenAsked } from "./confine-when-asked.ts";
import { lookUpProgram } from "./program-lookup.ts";
import { stopOnBreach } from "./stop-on-breach.ts";
import type { RequestChannel, RunningRequest } from "./request-channel.ts";
import { abortedBeforeStart, RequestFailure } from "./spawner-failure.ts";
import type { ServerRequest } from "./spawner-protocol.ts";

/**
 * The server starts behind a gate: a shell that waits for a line on descriptor 3, then becomes
 * the server (same process). The spawner opens the gate when the host says it holds all three
 * pipes (`open`), by which time this process has closed its own ends of them: until then they
 * are read here too, and what the server wrote could be lost. Nor can a server that exits at
 * once take its pipes with it before they are handed over. Should the spawner go first, the
 * gate closes unopened and the server never runs.
 */
const GATE = 'read -r _ <&3 && exec 3<&- && exec "$0" "$@"';

/** Resolves once `child` has started; rejects (RequestFailure "spawn") when it could not be. */
function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (err: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      reject(
        new RequestFailure({
          kind: "spawn",
          message: err.message,
          ...(typeof err.code === "string" ? { code: err.code } : {}),
        }),
      );
    });
  });
}

/** The program to run, found as a spawn would find it; throws RequestFailure as a spawn would fail. */
function programOf(request: ServerRequest): string {
  const found = lookUpProgram(request.file, request.env.PATH ?? "", request.cwd);
  if ("file" in found) return found.file;
  throw new RequestFailure({
    kind: "spawn",
    message: `spawn ${request.file} ${found.code}`,
    code: found.code,
  });
}

/**
 * Start one server request: confined when the request says so, its pipes handed to the host
 * (`pipe` events), then `started`, and `server-exit` once it has ended. Throws RequestFailure
 * when the sandbox cannot wrap it, it cannot be started, or the host aborted first.
 */
export async function startServer(
  request: ServerRequest,
  signal: AbortSignal,
  channel: RequestChannel,
): Promise<RunningRequest> {
  const { id } = request;
  const confined = await confineWhenAsked(request.line, request.confine, signal);
  const breach = stopOnBreach(confined);
  let program: [string, string[]];
  try {
    program = confined ? ["/bin/bash", ["-c", confined.line]] : [programOf(request), request.args];
    if (signal.aborted) throw abortedBeforeStart();
  } catch (err) {
    confined?.release();
    throw err;
  }
  // In a process group of its own: a stop reaches whatever it started too, and a terminal's
  // Ctrl-C reaches only the host, which closes its servers itself.
  const child = spawn("/bin/sh", ["-c", GATE, program[0], ...program[1]], {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  const running = (): boolean =>
    child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = (): void => {
    if (running()) {
      const pid = child.pid as number;
      if (confined) killSandboxTree(pid);
      signalProcess(-pid, "SIGKILL");
    }
    // At once: the spawner may be exiting, before the exit below is seen (release is idempotent).
    confined?.release();
  };
  try {
    await started(child);
    if (signal.aborted) throw abortedBeforeStart();
  } catch (err) {
    kill();
    throw err;
  }
  child.once("exit", (code, killedBy) => {
    signal.removeEventListener("abort", kill);
    const removed = confined?.release() ?? [];
    const stoppedBecause = breach.reason;
    channel.send({
      type: "server-exit",
      id,
      code,
      signal: killedBy,
      removed,
      ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
    });
  });
  signal.addEventListener("abort", kill, { once: true });
  breach.arm(kill);
  const gate = child.stdio[3] as Socket;
  // A server gone before its gate opened (stopped, killed) makes these fail with EPIPE or a
  // reset: its exit says what happened, and the spawner must not fall over an unheard error.
  for (const pipe of child.stdio) pipe?.on("error", () => undefined);
  // Handed over, the pipes are closed here: only the host holds them (so the server sees the
  // end of its input when the host ends it). In order: each waits until the one before arrived.
  channel.handOver({ type: "pipe", id, name: "stdin" }, child.stdin as Socket);
  channel.handOver({ type: "pipe", id, name: "stdout" }, child.stdout as Socket);
  channel.handOver({ type: "pipe", id, name: "stderr" }, child.stderr as Socket);
  channel.send({ type: "started", id, pid: child.pid as number });
  return {
    kill,
    signal(name) {
      if (name === "SIGKILL") kill();
      else if (running()) signalProcess(-(child.pid as number), name);
    },
    open() {
      gate.end("go\n");
    },
  };
}
