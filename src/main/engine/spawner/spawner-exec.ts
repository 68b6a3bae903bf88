// A program run without a shell, its output collected, as the spawner runs it for a plugin's
// `runtime.shell.run` (plugins/bridge-shell.ts): a timeout, an output cap, SIGKILL, abort.
import { execFile, type ExecFileException } from "node:child_process";
import { killSandboxTree } from "../sandbox/kill-sandbox-tree.ts";
import { confineWhenAsked } from "./confine-when-asked.ts";
import { abortedBeforeStart } from "./spawner-failure.ts";
import type { RequestChannel, RunningRequest } from "./spawner-pty.ts";
import type { ExecEnd, ExecRequest } from "./spawner-protocol.ts";

const EMPTY = new Uint8Array(0);

function endOf(error: ExecFileException | null): ExecEnd {
  if (!error) return { code: 0, killed: false, failed: false };
  return {
    code: typeof error.code === "number" || typeof error.code === "string" ? error.code : null,
    name: error.name,
    killed: error.killed === true,
    failed: true,
  };
}

/**
 * Start one exec request: wrapped in the OS sandbox when `confine` is given (then bash runs the
 * sandbox's launcher with `line`), else `file` with `args`. Replies with one `exec-done`.
 * Aborting `signal` kills it (its whole sandbox first). Throws RequestFailure when the sandbox
 * cannot wrap it, or when aborted first.
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
  const [file, args] = confined ? ["/bin/bash", ["-c", confined.line]] : [request.file, request.args];
  // Before execFile's own abort handling: the sandbox goes down with its launcher, whole.
  // (Only ever called once `child` below is set: the signal was checked just now.)
  const stopSandbox = (): void => {
    if (child.pid !== undefined) killSandboxTree(child.pid);
  };
  if (confined) signal.addEventListener("abort", stopSandbox, { once: true });
  const child = execFile(
    file,
    args,
    {
      cwd: request.cwd,
      env: request.env,
      encoding: "buffer",
      maxBuffer: request.maxBytes,
      timeout: request.timeoutMs,
      killSignal: "SIGKILL",
      signal,
      windowsHide: true,
      shell: false,
    },
    (error, stdout, stderr) => {
      signal.removeEventListener("abort", stopSandbox);
      const removed = confined?.release() ?? [];
      channel.send({
        type: "exec-done",
        id,
        end: endOf(error),
        stdout: stdout ?? EMPTY,
        stderr: stderr ?? EMPTY,
        removed,
      });
    },
  );
  child.stdin?.end();
  if (child.pid !== undefined) channel.send({ type: "started", id, pid: child.pid });
  return {
    kill() {
      if (child.pid === undefined) return;
      if (confined) killSandboxTree(child.pid);
      child.kill("SIGKILL");
    },
  };
}
