import { statSync, unlinkSync } from "node:fs";
import net from "node:net";
import { z } from "zod";
import {
  Control,
  type DaemonStatus,
  FromDaemon,
  frame,
  FrameReader,
  type JobRequest,
  ToDaemon,
} from "./daemon-frames.ts";
import { isForwardedSignal, type JobEnd, type JobInput, runJob } from "./daemon-job.ts";
import { errorMessage } from "../../engine/light.ts";

export interface DaemonOptions {
  socket: string;
  /** The build this daemon runs (see daemonAddress). */
  build: string;
  /** The daemon ends after this long without a command. */
  idleMs: number;
  /** The CLI's main. */
  run: (argv: readonly string[]) => Promise<number>;
  /** Whether the build on disk is still the one this daemon runs (checked between commands). */
  stillCurrent: () => boolean;
  /** One line for the daemon's log. */
  log: (line: string) => void;
  /** How often an idle daemon checks its socket and build (default 30 s). */
  checkEveryMs?: number;
  /** The MCP servers it keeps running between commands, by name (for its status). */
  keptServers?: () => Array<{ name: string; root: string }>;
}

const streamLook = z.object({ isTTY: z.boolean(), columns: z.number().int().positive().optional() });
/** A job request is checked like any input from outside this process. */
const jobRequest: z.ZodType<JobRequest> = z.object({
  argv: z.array(z.string()).max(10_000),
  cwd: z.string().min(1),
  env: z.record(z.string(), z.string()),
  stdin: streamLook,
  stdout: streamLook,
  stderr: streamLook,
});

/** How long a connection may take to send its first frame. */
const FIRST_FRAME_MS = 5_000;
/** How often an idle daemon checks that its socket and its build are still the current ones. */
const CHECK_EVERY_MS = 30_000;
/** A daemon that has served this many commands makes way for a fresh one. */
const MAX_JOBS = 1_000;

/**
 * Serve `lathe` commands on a Unix socket, one at a time, each in this process with the client's
 * arguments, folder, environment and streams (daemon-job.ts), until idle for `idleMs`, asked to
 * stop, replaced (the socket file is no longer this daemon's), or out of date (the build changed).
 * A command that arrives while another runs is answered "busy": its `lathe` runs it itself.
 * Resolves when the daemon has stopped listening; the caller then exits the process.
 */
export async function serveDaemon(options: DaemonOptions): Promise<void> {
  const startedAt = Date.now();
  let jobs = 0;
  let busy = false;
  let stopping = false;
  /** Asked to stop while a command ran: stop when it ends. */
  let stopAfterJob = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));

  const server = net.createServer((socket) => accept(socket));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const inode = statSync(options.socket).ino;
  options.log(`listening on ${options.socket} (pid ${process.pid})`);

  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    clearTimeout(idleTimer);
    clearInterval(checker);
    options.log(`stopping: ${why}`);
    server.close(() => stopped());
    // Only our own socket file: a newer daemon may have taken the name.
    if (ours()) {
      try {
        unlinkSync(options.socket);
      } catch {
        // Gone already.
      }
    }
  };
  function ours(): boolean {
    return statSync(options.socket, { throwIfNoEntry: false })?.ino === inode;
  }
  const armIdle = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop(`idle for ${Math.round(options.idleMs / 1000)} s`), options.idleMs);
    idleTimer.unref();
  };
  const checker = setInterval(() => {
    if (busy) return;
    if (!ours()) stop("its socket was removed or taken by another daemon");
    else if (!options.stillCurrent()) stop("Lathe was rebuilt or upgraded");
  }, options.checkEveryMs ?? CHECK_EVERY_MS);
  checker.unref();
  armIdle();

  function accept(socket: net.Socket): void {
    const reader = new FrameReader();
    let input: JobInput | undefined;
    let started = false;
    const firstFrame = setTimeout(() => socket.destroy(), FIRST_FRAME_MS);
    const send = (kind: number, payload?: Buffer | string): Promise<void> =>
      new Promise((resolve) => {
        if (socket.destroyed || !socket.writable) return resolve();
        socket.write(frame(kind, payload), () => resolve());
      });
    socket.on("error", () => {
      // The client went away; "close" below deals with it.
    });
    socket.on("close", () => {
      clearTimeout(firstFrame);
      // The client's `lathe` was killed while its command ran: so is the command, as by SIGTERM
      // (one that listens winds down and records what it did; one that does not ends here).
      if (started && input) input.signal("SIGTERM");
    });
    socket.on("data", (chunk: Buffer) => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const { kind, payload } of frames) {
        if (!started) {
          clearTimeout(firstFrame);
          started = true;
          void first(kind, payload);
          continue;
        }
        if (!input) continue;
        if (kind === ToDaemon.stdin) input.stdin(Buffer.from(payload));
        else if (kind === ToDaemon.stdinEnd) input.stdinEnd();
        else if (kind === ToDaemon.stdoutClosed) input.stdoutClosed();
        else if (kind === ToDaemon.signal) {
          const name = payload.toString("utf8");
          if (isForwardedSignal(name)) input.signal(name);
        }
      }
    });

    async function first(kind: number, payload: Buffer): Promise<void> {
      if (kind === Control.status) {
        const status: DaemonStatus = {
          pid: process.pid,
          startedAt,
          jobs,
          busy,
          idleMs: options.idleMs,
          build: options.build,
          memory: { rss: process.memoryUsage.rss(), heapUsed: process.memoryUsage().heapUsed },
          ...(options.keptServers ? { mcpServers: options.keptServers() } : {}),
        };
        await send(Control.status, JSON.stringify(status));
        socket.end();
        return;
      }
      if (kind === Control.stop) {
        await send(Control.stop);
        socket.end();
        if (!busy) stop("asked to stop");
        else stopAfterJob = true;
        return;
      }
      if (kind !== ToDaemon.job) return void socket.destroy();
      let request: JobRequest;
      try {
        request = jobRequest.parse(JSON.parse(payload.toString("utf8")));
      } catch {
        return void socket.destroy();
      }
      // Busy, stopping, or a folder this process cannot enter (deleted since): the client's
      // `lathe` runs the command itself, exactly as without a daemon.
      if (busy || stopping || !enterable(request.cwd)) {
        await send(FromDaemon.busy);
        socket.end();
        return;
      }
      busy = true;
      clearTimeout(idleTimer);
      jobs++;
      await send(FromDaemon.accepted);
      const began = performance.now();
      let end: JobEnd;
      try {
        const job = await runJob(
          request,
          {
            write: (stream, bytes) =>
              send(stream === "stdout" ? FromDaemon.stdout : FromDaemon.stderr, bytes),
            wantStdin: () => void send(FromDaemon.wantStdin),
          },
          options.run,
        );
        input = job.input;
        end = await job.ended;
      } catch (err) {
        // Nothing of the command ran: its folder could not be entered after all (removed since the
        // check above). Said as the launcher says an error, and the daemon goes on.
        const message = errorMessage(err);
        await send(FromDaemon.stderr, `error: ${message}\n`);
        end = { code: 1, reusable: true };
      }
      // The command's name only: its arguments may hold anything (file contents, tokens).
      const name = request.argv[0] === "call" ? `call ${request.argv[1] ?? ""}` : (request.argv[0] ?? "");
      options.log(`ran \`lathe ${name}\`: exit ${end.code} in ${Math.round(performance.now() - began)} ms`);
      await send(FromDaemon.exit, Buffer.from([end.code & 0xff]));
      socket.end();
      busy = false;
      if (!end.reusable) {
        stop("a command ended its process (process.exit or a signal); a fresh daemon takes over");
        return;
      }
      if (stopAfterJob) stop("asked to stop");
      else if (jobs >= MAX_JOBS) stop(`served ${MAX_JOBS} commands`);
      else armIdle();
    }
  }

  await done;
}

/**
 * Whether this process can make `dir` its folder, as the command needs. Tried for real: a folder
 * that exists but cannot be entered (no search permission for this user) is the client's own
 * business, run there as without a daemon.
 */
function enterable(dir: string): boolean {
  let here: string;
  try {
    here = process.cwd();
  } catch {
    // The daemon's own folder has gone: it cannot come back here, so it runs nothing.
    return false;
  }
  try {
    process.chdir(dir);
  } catch {
    return false;
  }
  process.chdir(here);
  return true;
}
