// Every message between the host and its process spawner (spawner-main.ts), both directions.
// The channel is Node's IPC with "advanced" serialization, so output travels as bytes, and a
// server's pipes travel as handles. A pty
// command's output does not travel at all: the spawner writes it to the sidecar file itself and
// sends back its head. The schemas are built on first use (a few milliseconds that a start
// running no command never pays).
import { z } from "../config/zod-mini.ts";

function build() {
  const Env = z.record(z.string(), z.string());

  /** What a confined process may do (the fields of confine-command.ts's ConfinementSpec). */
  const Confinement = z.strictObject({
    writable: z.array(z.string()),
    readOnly: z.array(
      z.strictObject({ path: z.string(), what: z.string(), kind: z.enum(["folder", "file"]) }),
    ),
    network: z.array(z.string()),
    unreadable: z.optional(z.array(z.string())),
    readable: z.optional(z.array(z.string())),
    pty: z.optional(z.boolean()),
    missingFiles: z.enum(["undo", "leave"]),
    workspace: z.optional(z.string()),
  });

  /** Run a shell line under bash on a fresh pseudo-terminal (see pty-runner.ts). */
  const PtyRequest = z.strictObject({
    type: z.literal("pty"),
    id: z.int(),
    /** What bash runs (`ptyScript(command)`); inside the sandbox when `confine` is given. */
    script: z.string(),
    cwd: z.string(),
    env: Env,
    confine: z.optional(Confinement),
    /** Where the output goes (see capped-output.ts): kept up to `maxBytes`, all of it in `sidecarPath` past that. */
    output: z.strictObject({
      maxBytes: z.int().check(z.nonnegative()),
      /** A fresh file in the session's sidecar folder, created only when the output passes `maxBytes`. */
      sidecarPath: z.string(),
      /** The most output kept (the sidecar's size): past it the command is stopped (`outputCapped`). */
      maxSidecarBytes: z.optional(z.int().check(z.positive())),
      /** The workspace root, against which the notice of removed protected files names them. */
      root: z.string(),
    }),
    /**
     * Stop the command (its whole group, as an abort does) this long after it started, but keep
     * what it printed: its `exit` then says `timedOut` and carries the output. Given this, a
     * command that waits to read its terminal is stopped at once the same way (`waitingForInput`).
     */
    stopAfterMs: z.optional(z.int().check(z.positive())),
  });

  /** A program to start without a shell (exec and server requests). */
  const program = {
    file: z.string(),
    args: z.array(z.string()),
    /** The shell line of the same command, run confined in its place when `confine` is given. */
    line: z.string(),
    cwd: z.string(),
    env: Env,
    confine: z.optional(Confinement),
  };

  /** Run a program without a shell, collecting its output (see bridge-shell.ts, user-hook.ts). */
  const ExecRequest = z.strictObject({
    type: z.literal("exec"),
    id: z.int(),
    ...program,
    timeoutMs: z.int().check(z.positive()),
    maxBytes: z.int().check(z.positive()),
    /** Written to the program's stdin, which is then closed (empty when not given). */
    stdin: z.optional(z.string()),
    /** Run it in a process group of its own, which the timeout and an abort end whole. */
    group: z.optional(z.boolean()),
  });

  /**
   * Start a long-running server (an MCP stdio server) that the host talks to directly: its
   * stdin, stdout and stderr are handed over to the host (one `pipe` event each, carrying the
   * pipe), then `started`; it runs once the host answers `open`; `server-exit` says when it has
   * ended. Inside the sandbox when
   * `confine` is given (bash then runs the sandbox's launcher with `line`).
   */
  const ServerRequest = z.strictObject({ type: z.literal("server"), id: z.int(), ...program });

  /** Requests that get replies, by id. */
  const SpawnerRequest = z.discriminatedUnion("type", [
    PtyRequest,
    ExecRequest,
    ServerRequest,
    z.strictObject({ type: z.literal("abort"), id: z.int() }),
    /**
     * The host holds a server's pipes (it has had `started`): let the server run. Sent then, it
     * comes after the host's receipts for the pipes, by which the spawner has closed its own ends.
     */
    z.strictObject({ type: z.literal("open"), id: z.int() }),
    /** Ask a server to stop (no reply but its `server-exit`): SIGTERM first, SIGKILL if it lingers. */
    z.strictObject({
      type: z.literal("signal"),
      id: z.int(),
      signal: z.enum(["SIGTERM", "SIGKILL"]),
    }),
    /** Find out whether this machine can run the OS sandbox (one `sandbox-checked` reply). */
    z.strictObject({ type: z.literal("sandbox-check"), id: z.int() }),
    /** Load node-pty and the sandbox library now, before the first command needs them. */
    z.strictObject({ type: z.literal("warm") }),
  ]);

  /**
   * Why a request failed in the spawner: "sandbox" (the sandbox could not wrap it: it did not
   * run), "aborted" (stopped before it started), "spawn" (the process could not be started),
   * "internal" (the spawner's own fault).
   */
  const Failure = z.strictObject({
    kind: z.enum(["sandbox", "aborted", "spawn", "internal"]),
    message: z.string(),
    code: z.optional(z.string()),
  });

  /** How an exec'd program ended (the fields of execFile's error that matter, or none). */
  const ExecEnd = z.strictObject({
    /** The exit status, an errno code ("ENOENT", "ERR_CHILD_PROCESS_STDIO_MAXBUFFER"), or null. */
    code: z.union([z.number(), z.string(), z.null()]),
    /** The error's name ("AbortError"), when it failed. */
    name: z.optional(z.string()),
    /** It was killed by its timeout (or the output cap). */
    killed: z.boolean(),
    failed: z.boolean(),
  });

  const Bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, "expected bytes");

  /** What the spawner sends back. */
  const SpawnerEvent = z.discriminatedUnion("type", [
    /** Ready to take requests (sent once, at start). */
    z.strictObject({ type: z.literal("ready"), pid: z.int() }),
    /** The process of request `id` has started (so its outcome is unknown if the spawner dies). */
    z.strictObject({ type: z.literal("started"), id: z.int(), pid: z.int() }),
    z.strictObject({
      type: z.literal("exit"),
      id: z.int(),
      exitCode: z.int(),
      /** Protected files the process created, which have been removed. */
      removed: z.array(z.string()),
      /** Why Lathe stopped it, when a path its sandbox held changed under it (mount-guard.ts). */
      stoppedBecause: z.optional(z.string()),
      /** It was stopped at the request's `stopAfterMs`. */
      timedOut: z.optional(z.boolean()),
      /** It was stopped because its output passed the request's `maxSidecarBytes`. */
      outputCapped: z.optional(z.boolean()),
      /**
       * It was stopped early (only with a `stopAfterMs`) because this program, one of its
       * processes, waited to read the terminal, where nobody types (see terminal-readers.ts).
       */
      waitingForInput: z.optional(z.string()),
      /**
       * The output as shown (its head and tail, and the sidecar holding all that was printed past
       * the cap: see capped-output.ts), or why the sidecar
       * could not be written in full; none when the request was aborted (the sidecar is removed).
       */
      output: z.optional(
        z.union([
          z.strictObject({
            text: z.string(),
            sidecarPath: z.optional(z.string()),
            tail: z.optional(z.string()),
            totalBytes: z.int().check(z.nonnegative()),
            totalLines: z.int().check(z.nonnegative()),
            printedBytes: z.int().check(z.nonnegative()),
          }),
          z.strictObject({ error: z.string() }),
        ]),
      ),
    }),
    z.strictObject({
      type: z.literal("exec-done"),
      id: z.int(),
      end: ExecEnd,
      stdout: Bytes,
      stderr: Bytes,
      removed: z.array(z.string()),
      /** What Lathe took out of git repositories it made or changed in the workspace (planted-repos.ts). */
      planted: z.optional(z.string()),
      /** Why Lathe stopped it, when a path its sandbox held changed under it (mount-guard.ts). */
      stoppedBecause: z.optional(z.string()),
    }),
    /** One of a server's pipes, handed to the host with this message (before `started`). */
    z.strictObject({
      type: z.literal("pipe"),
      id: z.int(),
      name: z.enum(["stdin", "stdout", "stderr"]),
    }),
    /** A server has ended, and what its sandbox held is given back. */
    z.strictObject({
      type: z.literal("server-exit"),
      id: z.int(),
      /** Its exit status, or null when a signal ended it. */
      code: z.nullable(z.int()),
      signal: z.nullable(z.string()),
      /** Protected files it created, which have been removed. */
      removed: z.array(z.string()),
      /** Why Lathe stopped it, when a path its sandbox held changed under it (mount-guard.ts). */
      stoppedBecause: z.optional(z.string()),
    }),
    z.strictObject({ type: z.literal("failed"), id: z.int(), failure: Failure }),
    /** The sandbox library's dependency check, and why the trial command failed (if it did). */
    z.strictObject({
      type: z.literal("sandbox-checked"),
      id: z.int(),
      errors: z.array(z.string()),
      warnings: z.array(z.string()),
      failure: z.optional(z.string()),
    }),
  ]);
  return {
    Confinement,
    PtyRequest,
    ExecRequest,
    ServerRequest,
    SpawnerRequest,
    Failure,
    ExecEnd,
    SpawnerEvent,
  };
}

type Schemas = ReturnType<typeof build>;
let built: Schemas | undefined;

/** The protocol's schemas: requests (checked by the spawner) and events (checked by the host). */
export function protocolSchemas(): Schemas {
  built ??= build();
  return built;
}

export type SpawnerConfinement = z.infer<Schemas["Confinement"]>;
export type PtyRequest = z.infer<Schemas["PtyRequest"]>;
export type ExecRequest = z.infer<Schemas["ExecRequest"]>;
export type ServerRequest = z.infer<Schemas["ServerRequest"]>;
export type SpawnerRequest = z.infer<Schemas["SpawnerRequest"]>;
export type SpawnerFailure = z.infer<Schemas["Failure"]>;
export type ExecEnd = z.infer<Schemas["ExecEnd"]>;
export type SpawnerEvent = z.infer<Schemas["SpawnerEvent"]>;
