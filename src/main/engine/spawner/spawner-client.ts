import type { ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import type { Socket } from "node:net";
import { SandboxError } from "../errors/sandbox-error.ts";
import { SpawnerError } from "../errors/spawner-error.ts";
import { heldPaths, undoCreated } from "../sandbox/held-paths.ts";
import { signalProcess } from "../sandbox/signal-process.ts";
import type { CapturedOutput } from "./capped-output.ts";
import type { SandboxCheck } from "./spawner-sandbox-check.ts";
import {
  protocolSchemas,
  type ExecEnd,
  type ExecRequest,
  type PtyRequest,
  type ServerRequest,
  type SpawnerConfinement,
  type SpawnerEvent,
  type SpawnerFailure,
  type SpawnerRequest,
} from "./spawner-protocol.ts";
import { errorMessage } from "../errors/error-message.ts";

/** How a pty command ended: `exitCode` is 128 + the signal number when a signal killed it. */
export interface RemoteExit {
  exitCode: number;
  /** It was stopped at the request's `stopAfterMs` (its output is still all here). */
  timedOut: boolean;
  /** It was stopped because its output passed `maxSidecarBytes`: the sidecar holds that much of it. */
  outputCapped: boolean;
  /**
   * It was stopped before that, its output kept too, because this program of it waited to read
   * the terminal, where nobody types.
   */
  waitingForInput?: string;
  /** Protected files the command created, which have been removed. */
  removed: string[];
  /** Why Lathe stopped it: a path its sandbox held changed under it (mount-guard.ts). */
  stoppedBecause?: string;
  /** Its output: the head, and past the cap the sidecar file holding every byte. */
  output: CapturedOutput;
}

/** A command running on a pty in the spawner. */
export interface RemotePty {
  readonly pid: number;
  /**
   * Settles once the command has exited and every byte it wrote has been captured; rejects when
   * the sidecar could not be written in full, or with the abort reason once aborted.
   */
  readonly exited: Promise<RemoteExit>;
}

/** How an exec'd program ended, and what it wrote (cut at the request's cap). */
export interface RemoteExecResult {
  end: ExecEnd;
  stdout: Buffer;
  stderr: Buffer;
  removed: string[];
  /** What Lathe took out of git repositories it made or changed in the workspace (planted-repos.ts). */
  planted?: string;
  /** Why Lathe stopped it: a path its sandbox held changed under it (mount-guard.ts). */
  stoppedBecause?: string;
}

/** How a server ended: its status, or that its spawner died (and the server was killed). */
export type ServerEnd =
  | {
      code: number | null;
      signal: string | null;
      removed: string[];
      /** Why Lathe stopped it: a path its sandbox held changed under it (mount-guard.ts). */
      stoppedBecause?: string;
    }
  | { lost: SpawnerError };

/** A long-running server the spawner started, its pipes now the host's. */
export interface RemoteServer {
  readonly pid: number;
  readonly stdin: Socket;
  readonly stdout: Socket;
  readonly stderr: Socket;
  /** Settles once it has ended; never rejects. */
  readonly ended: Promise<ServerEnd>;
  /** Ask it to stop: SIGTERM, then SIGKILL (its whole sandbox) if it lingers. */
  signal(name: "SIGTERM" | "SIGKILL"): void;
}

type Event = SpawnerEvent & { id: number };

interface Pending {
  /** Its process has started (if the spawner dies now, the outcome is unknown). */
  started: boolean;
  onEvent(event: Event, pipe: Socket | undefined): void;
  onLost(err: SpawnerError): void;
}

/** What a request is told when the spawner could not start or has gone. */
function lostError(why: string, started: boolean, startedUp: boolean): SpawnerError {
  const what = startedUp
    ? `the process spawner stopped (${why})`
    : `the process spawner could not start (${why})`;
  return new SpawnerError(
    started
      ? `${what} while the command ran, so its outcome is unknown: it may have done part of its work. The next command starts a fresh spawner.`
      : `${what}, so the command did not run. The next command starts a fresh spawner.`,
  );
}

/** Starts the spawner process (tests inject one that fails). */
export type SpawnerFork = () => ChildProcess;

/** The error for a pty exit without its output. */
function missingOutput(error: string | undefined, signal: AbortSignal): unknown {
  if (signal.aborted) return abortReason(signal);
  if (error !== undefined) return new Error(error);
  return new SpawnerError("the process spawner sent a command's exit without its output");
}

function bytes(chunk: Uint8Array): Buffer {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/**
 * The protected files that do not exist before a confined command and are to be removed if it
 * creates them (see held-paths.ts): the spawner does that when the command ends, the host when
 * the spawner dies first.
 */
function watchedFiles(confine: SpawnerConfinement | undefined): string[] {
  return confine?.missingFiles === "undo" ? heldPaths(confine.readOnly).watched : [];
}

/** A command lost with its spawner: undo the protected files it created, and say so. */
function undoAfterLoss(err: unknown, watched: readonly string[]): unknown {
  if (watched.length === 0 || !SpawnerError.isInstance(err)) return err;
  const removed = undoCreated(watched);
  if (removed.length === 0) return err;
  return new SpawnerError(
    `${err.message} Lathe removed ${removed.join(", ")}: the command created ${removed.length > 1 ? "them, and they are protected paths" : "it, and it is a protected path"}.`,
  );
}

/** The error a request failed with in the spawner, as the host's callers know it. */
function failureError(failure: SpawnerFailure, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return abortReason(signal);
  switch (failure.kind) {
    case "sandbox":
      return new SandboxError(failure.message, { commandTooLong: failure.code === "command_too_long" });
    case "internal":
      return new SpawnerError(failure.message);
    default:
      return Object.assign(new Error(failure.message), failure.code ? { code: failure.code } : {});
  }
}

/**
 * The host's side of the process spawner (spawner-main.ts): a child process, started on first
 * need (or `warm()`), that starts every process for the host and streams back what they do.
 * While a request is pending the child and its channel keep the host alive; idle, they do not.
 * If the child cannot start or dies, every pending request fails with a SpawnerError that says
 * whether its command ran, and the next request starts a fresh child.
 */
export class SpawnerClient {
  private readonly fork: SpawnerFork;
  private readonly environment: (() => string) | undefined;
  private child: ChildProcess | undefined;
  /** What `environment` said when the running child was started. */
  private childEnvironment: string | undefined;
  private ready = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /**
   * `environment`: the host's environment as the child is started with it (a string to compare).
   * When it has changed since the running child started and no request is pending, the next
   * request starts a fresh child: one host can serve callers with different environments (the
   * CLI's daemon), and the child hands its own on (the sandbox library's proxy settings, HOME,
   * its temp folder under TMPDIR).
   */
  constructor(fork: SpawnerFork, environment?: () => string) {
    this.fork = fork;
    this.environment = environment;
  }

  /** The spawner's process id while it runs (for diagnostics and tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Start the spawner now and load what commands need, off the first command's path. */
  warm(): void {
    // Not started now: the first request tries again, and fails saying why.
    let child: ChildProcess;
    try {
      child = this.running();
    } catch {
      return;
    }
    this.post(child, { type: "warm" });
  }

  /**
   * Run `script` under bash on a fresh pty in the spawner (inside the OS sandbox with
   * `confine`), which captures its output as `request.output` says. Resolves once it has
   * started. Aborting `signal` stops its whole process group.
   */
  pty(request: Omit<PtyRequest, "type" | "id">, signal: AbortSignal): Promise<RemotePty> {
    const watched = watchedFiles(request.confine);
    return new Promise<RemotePty>((resolve, reject) => {
      let resolveExit: (exit: RemoteExit) => void = () => undefined;
      let rejectExit: (err: unknown) => void = () => undefined;
      const exited = new Promise<RemoteExit>((res, rej) => {
        resolveExit = res;
        rejectExit = rej;
      });
      // Awaited by the caller once it has the process; never left unhandled before that.
      exited.catch(() => undefined);
      this.request(
        { ...request, type: "pty" },
        signal,
        (event, done) => {
          switch (event.type) {
            case "started":
              resolve({ pid: event.pid, exited });
              return;
            case "exit": {
              done();
              const output = event.output;
              // Aborted once it had exited: the call's output is not wanted, its sidecar neither.
              if (signal.aborted && output !== undefined && "sidecarPath" in output && output.sidecarPath) {
                void rm(output.sidecarPath, { force: true }).catch(() => undefined);
              }
              if (output === undefined || "error" in output || signal.aborted) {
                rejectExit(missingOutput(output && "error" in output ? output.error : undefined, signal));
                return;
              }
              const { text, sidecarPath, tail, totalBytes, totalLines, printedBytes } = output;
              resolveExit({
                exitCode: event.exitCode,
                timedOut: event.timedOut === true,
                outputCapped: event.outputCapped === true,
                ...(event.waitingForInput === undefined ? {} : { waitingForInput: event.waitingForInput }),
                ...(event.stoppedBecause === undefined ? {} : { stoppedBecause: event.stoppedBecause }),
                removed: event.removed,
                output: {
                  text,
                  totalBytes,
                  totalLines,
                  printedBytes,
                  ...(sidecarPath === undefined ? {} : { sidecarPath }),
                  ...(tail === undefined ? {} : { tail }),
                },
              });
              return;
            }
            case "failed":
              done();
              reject(failureError(event.failure, signal));
              return;
          }
        },
        (err, started) => (started ? rejectExit(undoAfterLoss(err, watched)) : reject(err)),
      );
    });
  }

  /**
   * Run a program in the spawner without a shell, its output collected up to `maxBytes`
   * (inside the OS sandbox with `confine`, as `line`). Aborting `signal` kills it.
   */
  exec(request: Omit<ExecRequest, "type" | "id">, signal: AbortSignal): Promise<RemoteExecResult> {
    const watched = watchedFiles(request.confine);
    return new Promise<RemoteExecResult>((resolve, reject) => {
      this.request(
        { ...request, type: "exec" },
        signal,
        (event, done) => {
          if (event.type === "exec-done") {
            done();
            const { end, removed, planted, stoppedBecause } = event;
            resolve({
              end,
              stdout: bytes(event.stdout),
              stderr: bytes(event.stderr),
              removed,
              ...(planted === undefined ? {} : { planted }),
              ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
            });
          } else if (event.type === "failed") {
            done();
            reject(failureError(event.failure, signal));
          }
        },
        (err, started) => reject(started ? undoAfterLoss(err, watched) : err),
      );
    });
  }

  /**
   * Start a long-running server in the spawner (inside the OS sandbox with `confine`, as
   * `line`): resolves once it runs, with its pipes handed to this process. Rejects as a request
   * that did not run when it could not be started.
   */
  server(request: Omit<ServerRequest, "type" | "id">): Promise<RemoteServer> {
    return new Promise<RemoteServer>((resolve, reject) => {
      const pipes: Partial<Record<"stdin" | "stdout" | "stderr", Socket>> = {};
      let resolveEnd: (end: ServerEnd) => void = () => undefined;
      const ended = new Promise<ServerEnd>((res) => (resolveEnd = res));
      let pid: number | undefined;
      const id = this.request(
        { ...request, type: "server" },
        undefined,
        (event, done, pipe) => {
          switch (event.type) {
            case "pipe":
              if (pipe) pipes[event.name] = pipe;
              return;
            case "started": {
              const { stdin, stdout, stderr } = pipes;
              if (!stdin || !stdout || !stderr) {
                this.steer(id, "abort");
                reject(
                  new SpawnerError("the process spawner started a server without handing over its pipes"),
                );
                return;
              }
              pid = event.pid;
              // Sent now, it follows this process's receipts for the pipes: the spawner has let go
              // of its ends by the time the server runs.
              this.post(owner as ChildProcess, { type: "open", id });
              resolve({
                pid,
                stdin,
                stdout,
                stderr,
                ended,
                signal: (name) => {
                  const child = this.child;
                  if (child && child === owner && this.pending.has(id))
                    this.post(child, { type: "signal", id, signal: name });
                },
              });
              return;
            }
            case "server-exit":
              done();
              resolveEnd({
                code: event.code,
                signal: event.signal,
                removed: event.removed,
                ...(event.stoppedBecause === undefined ? {} : { stoppedBecause: event.stoppedBecause }),
              });
              return;
            case "failed":
              done();
              for (const piece of Object.values(pipes)) piece.destroy();
              reject(failureError(event.failure, undefined));
              return;
          }
        },
        (err, started) => {
          if (!started) {
            for (const piece of Object.values(pipes)) piece.destroy();
            reject(err);
            return;
          }
          // Its spawner is gone, and with it the only one who would see it end: a server whose
          // output is still open is killed, with its process group (a sandboxed one has died with
          // its launcher already).
          if (pid !== undefined && pipes.stdout?.closed === false) signalProcess(-pid, "SIGKILL");
          resolveEnd({ lost: err as SpawnerError });
        },
      );
      // The spawner that runs it: only that one can be asked to stop it.
      const owner = this.child;
    });
  }

  /**
   * Whether this machine can run the OS sandbox: the library's dependency check and, when it
   * finds nothing missing, one sandboxed command, both run in the spawner (see
   * spawner-sandbox-check.ts). Rejects with a SpawnerError when the spawner cannot run it.
   */
  checkSandbox(): Promise<SandboxCheck> {
    return new Promise<SandboxCheck>((resolve, reject) => {
      this.request(
        { type: "sandbox-check" },
        undefined,
        (event, done) => {
          if (event.type === "sandbox-checked") {
            done();
            const { errors, warnings, failure } = event;
            resolve({ errors, warnings, ...(failure === undefined ? {} : { failure }) });
          } else if (event.type === "failed") {
            done();
            reject(failureError(event.failure, undefined));
          }
        },
        (err) => reject(err),
      );
    });
  }

  /** Send a request and route its events until `done`; returns its id. */
  private request(
    message:
      | Omit<PtyRequest, "id">
      | Omit<ExecRequest, "id">
      | Omit<ServerRequest, "id">
      | { type: "sandbox-check" },
    signal: AbortSignal | undefined,
    onEvent: (event: Event, done: () => void, pipe: Socket | undefined) => void,
    onLost: (err: unknown, started: boolean) => void,
  ): number {
    const id = this.nextId++;
    if (signal?.aborted) {
      onLost(abortReason(signal), false);
      return id;
    }
    const onAbort = (): void => this.steer(id, "abort");
    const done = (): void => {
      signal?.removeEventListener("abort", onAbort);
      this.pending.delete(id);
      this.updateRef();
    };
    const entry: Pending = {
      started: false,
      onEvent: (event, pipe) => {
        if (event.type === "started") entry.started = true;
        onEvent(event, done, pipe);
      },
      onLost: (err) => {
        done();
        onLost(err, entry.started);
      },
    };
    let child: ChildProcess;
    try {
      child = this.running();
    } catch (err) {
      onLost(lostError(`it could not be started: ${errorMessage(err)}`, false, false), false);
      return id;
    }
    this.pending.set(id, entry);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.updateRef();
    this.post(child, { ...message, id } as SpawnerRequest);
    return id;
  }

  private steer(id: number, type: "abort"): void {
    const child = this.child;
    if (child && this.pending.has(id)) this.post(child, { type, id });
  }

  private post(child: ChildProcess, message: SpawnerRequest): void {
    if (!child.connected) return;
    // A failed send means the channel is closing: the child's close ends every pending request.
    child.send(message, (err) => {
      if (err && child === this.child && !child.connected) this.lost(child, "its channel closed");
    });
  }

  /** The spawner, started if it is not running (throws when it cannot be started). */
  private running(): ChildProcess {
    const environment = this.environment?.();
    if (this.child) {
      if (environment === this.childEnvironment || this.pending.size > 0) return this.child;
      // Started for another environment, and idle: retired (its close is then no one's loss).
      const old = this.child;
      this.child = undefined;
      old.kill();
    }
    const child = this.fork();
    this.child = child;
    this.childEnvironment = environment;
    this.ready = false;
    child.on("message", (message: unknown, pipe: unknown) =>
      this.receive(child, message, pipe as Socket | undefined),
    );
    // It could not be started, signalled or sent to: either way it cannot be relied on any more.
    child.on("error", (err) => {
      child.kill("SIGKILL");
      this.lost(child, err.message);
    });
    child.on("close", (code, signal) =>
      this.lost(child, signal ? `it was killed by ${signal}` : `it exited with code ${code}`),
    );
    this.updateRef();
    return child;
  }

  private receive(child: ChildProcess, message: unknown, pipe: Socket | undefined): void {
    if (child !== this.child) {
      pipe?.destroy();
      return;
    }
    const parsed = protocolSchemas().SpawnerEvent.safeParse(message);
    if (!parsed.success) {
      pipe?.destroy();
      // Our own child said something unexpected: it cannot be trusted with commands any more.
      child.kill("SIGKILL");
      this.lost(child, `it sent a message the host does not understand (${parsed.error.message})`);
      return;
    }
    const event = parsed.data;
    if (event.type === "ready") {
      this.ready = true;
      return;
    }
    const pending = this.pending.get(event.id);
    if (pending) pending.onEvent(event, pipe);
    else pipe?.destroy();
  }

  /** The spawner has gone: every pending request fails, saying whether its command ran. */
  private lost(child: ChildProcess, why: string): void {
    if (child !== this.child) return;
    this.child = undefined;
    const startedUp = this.ready;
    for (const entry of [...this.pending.values()]) entry.onLost(lostError(why, entry.started, startedUp));
    this.pending.clear();
  }

  /** Keep the host alive only while a request is pending. */
  private updateRef(): void {
    const child = this.child;
    if (!child) return;
    const channel = child.channel as { ref?(): void; unref?(): void } | null | undefined;
    if (this.pending.size > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }
}
