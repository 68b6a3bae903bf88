// The `lathe` side of the daemon (see daemon-server.ts): bin/lathe.mjs loads this file of the
// CLI bundle first for the commands a daemon runs (`tools`, `call`, `batch`, `run`). When a
// daemon of this build listens for this data folder, the command runs there — no engine code is
// loaded in this process — and its output, exit code, stdin and signals pass through. When none
// listens, one is started in the background for the next command, and this command runs here as
// before.
import childProcess from "node:child_process";
import net from "node:net";
import path from "node:path";
import tty from "node:tty";
import { fileURLToPath } from "node:url";
import { daemonAddress, privateFolderProblem, socketBlocked } from "./daemon-address.ts";
import {
  FromDaemon,
  frame,
  FrameReader,
  type JobRequest,
  type StreamLook,
  ToDaemon,
} from "./daemon-frames.ts";
import { bundleBuild, DAEMON_COMMANDS, daemonMode } from "./daemon-mode.ts";

const BUNDLE_DIR = path.dirname(fileURLToPath(import.meta.url));

const lookOf = (stream: { isTTY?: boolean; columns?: number }): StreamLook =>
  stream.isTTY === true
    ? { isTTY: true, ...(stream.columns !== undefined ? { columns: stream.columns } : {}) }
    : { isTTY: false };

/**
 * Run the command in a daemon: resolves to its exit code, or to undefined when this process must
 * run it itself (no daemon, a busy one, a command a daemon does not run, LATHE_DAEMON=off,
 * LATHE_DEBUG=1). `bin` is the launcher, which `lathe daemon run` is started with when no daemon listens.
 */
export async function runInDaemon(argv: readonly string[], bin: string): Promise<number | undefined> {
  if (!DAEMON_COMMANDS.has(argv[0] ?? "") || !daemonMode().on) return undefined;
  // Debugging runs in a process of its own: its stack traces point into the sources (the launcher
  // maps them, and only for modules it loads after), where a daemon's would point into the bundle.
  if (process.env.LATHE_DEBUG === "1") return undefined;
  const build = bundleBuild(BUNDLE_DIR);
  if (build === undefined) return undefined;
  const address = daemonAddress(build);
  if ("why" in address) return undefined;
  const problem = privateFolderProblem(address.dir);
  if (problem !== undefined) {
    // No folder yet: nothing has started a daemon for this data folder. Anything else (a folder
    // others can enter) is never used; `lathe daemon status` says why.
    if (problem.endsWith("does not exist")) startDaemon(bin);
    return undefined;
  }
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch {
    // The caller's folder was removed while it was in it: there is none to hand over. The command
    // runs here and fails as it does without a daemon (one clear error, no trace).
    return undefined;
  }
  return connect(address.socket, { argv, cwd }, bin);
}

/** Start `lathe daemon run` in the background, on its own, for the commands after this one. */
function startDaemon(bin: string): void {
  try {
    childProcess.spawn(process.execPath, [bin, "daemon", "run"], { detached: true, stdio: "ignore" }).unref();
  } catch {
    // The command runs here anyway; the next one tries again.
  }
}

function connect(
  socketPath: string,
  { argv, cwd }: { argv: readonly string[]; cwd: string },
  bin: string,
): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const reader = new FrameReader();
    let accepted = false;
    let settled = false;
    let exitCode: number | undefined;
    const settle = (code: number | undefined): void => {
      if (settled) return;
      settled = true;
      for (const [name, handler] of signalHandlers) process.off(name, handler);
      socket.destroy();
      resolve(code);
    };

    const signalHandlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map(
      (name) => [name, () => void socket.write(frame(ToDaemon.signal, name))] as const,
    );

    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (exitCode !== undefined) return;
      if (accepted) {
        process.stderr.write(
          `error: the Lathe daemon went away while running this command (${err.message})\n`,
        );
        settle(1);
        return;
      }
      // Nothing listens (a daemon that stopped, or never started): start one for next time.
      // (Not over a file that is no socket: no daemon could take its place; status says so.)
      if ((err.code === "ENOENT" || err.code === "ECONNREFUSED") && socketBlocked(socketPath) === undefined)
        startDaemon(bin);
      settle(undefined);
    });
    socket.on("close", () => {
      // After the exit frame the daemon hangs up; the output is being flushed (see below).
      if (exitCode !== undefined) return;
      if (!settled && accepted) {
        process.stderr.write("error: the Lathe daemon went away while running this command\n");
      }
      settle(accepted ? 1 : undefined);
    });
    socket.on("connect", () => {
      const request: JobRequest = {
        argv: [...argv],
        cwd,
        env: Object.fromEntries(
          Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
        // Only asked, not opened: a command that does not read stdin leaves it to the caller.
        stdin: { isTTY: tty.isatty(0) },
        stdout: lookOf(process.stdout),
        stderr: lookOf(process.stderr),
      };
      socket.write(frame(ToDaemon.job, JSON.stringify(request)));
    });
    // A stdout whose reader has gone drains no more: output held back for it (see below) is let go,
    // or the daemon's last frames — the exit code — would never be read, and this process would
    // end, its socket paused and its loop empty, with 0 whatever the command's code.
    let stdoutGone = false;
    const stdoutLost = (): void => {
      if (stdoutGone) return;
      stdoutGone = true;
      socket.resume();
    };
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE" && !socket.destroyed) socket.write(frame(ToDaemon.stdoutClosed));
      stdoutLost();
    });
    process.stdout.on("close", stdoutLost);
    // A stderr whose reader has gone (\`2> >(head -1)\`) only drops what is written to it, as the
    // CLI's own process does (closed-output.ts): unheard, its EPIPE would end this process and so,
    // as a caller killed, the command in the daemon.
    let stderrGone = false;
    process.stderr.on("error", () => {
      stderrGone = true;
    });

    socket.on("data", (chunk: Buffer) => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy(new Error("the daemon sent something that is not a frame"));
        return;
      }
      for (const { kind, payload } of frames) {
        switch (kind) {
          case FromDaemon.busy:
            settle(undefined);
            return;
          case FromDaemon.accepted:
            accepted = true;
            for (const [name, handler] of signalHandlers) process.on(name, handler);
            break;
          case FromDaemon.stdout:
            if (stdoutGone) break;
            if (!process.stdout.write(payload)) {
              socket.pause();
              process.stdout.once("drain", () => socket.resume());
            }
            break;
          case FromDaemon.stderr:
            if (!stderrGone) process.stderr.write(payload);
            break;
          case FromDaemon.wantStdin:
            process.stdin.on("data", (bytes: Buffer) => socket.write(frame(ToDaemon.stdin, bytes)));
            process.stdin.on("end", () => socket.write(frame(ToDaemon.stdinEnd)));
            break;
          case FromDaemon.exit: {
            const code = payload[0] ?? 1;
            exitCode = code;
            // Everything written so far reaches the OS before the caller exits.
            const flushStderr = (): void => {
              if (stderrGone) settle(code);
              else process.stderr.write("", () => settle(code));
            };
            if (stdoutGone) flushStderr();
            else process.stdout.write("", flushStderr);
            return;
          }
          default:
            break;
        }
      }
    });
  });
}
