// The entry of the process spawner: a small, long-lived Node child of the host that starts
// every process the engine runs (bash on a pty, a plugin's commands, hooks, MCP stdio servers,
// the OS sandbox's wraps), so the host never forks a large process (fork blocks the calling
// thread for as long as copying its page tables takes). Driven over the IPC channel by
// spawner-client.ts; see spawner-protocol.ts for the messages.
import { rmdirSync } from "node:fs";
import type { Socket } from "node:net";
import type { RequestChannel, RunningRequest } from "./request-channel.ts";
import { RequestFailure } from "./spawner-failure.ts";
import { startExec } from "./spawner-exec.ts";
import { protocolSchemas, type SpawnerEvent, type SpawnerFailure } from "./spawner-protocol.ts";
import { startPty } from "./spawner-pty.ts";
import { startServer } from "./spawner-server.ts";
import { errorMessage } from "../errors/error-message.ts";
import { makeOwnedTempDirSync } from "../temp/owned-temp-dir.ts";
import { redirectLibraryLookups } from "../sandbox/sandbox-library-hooks.ts";

if (!process.send) throw new Error("spawner-main.ts runs only as a child process started with fork().");

// Before the sandbox library loads (with the first confined request): its wrappers find their
// shell and scan this process's folder without starting a process each time.
redirectLibraryLookups();

/**
 * A working directory of the spawner's own, empty and outside every workspace: the sandbox
 * library also protects shell and git files around the PROCESS's working directory (covering
 * missing ones with placeholders while a command runs), which would show up in a workspace that
 * is the working directory. Named after this process, so a later run sweeps it if this one is
 * killed before it removes it.
 */
const home = makeOwnedTempDirSync("spawner");
process.chdir(home);

interface Request {
  controller: AbortController;
  running?: RunningRequest;
}

const requests = new Map<number, Request>();

function send(event: SpawnerEvent, pipe?: Socket): void {
  if (!process.connected) {
    pipe?.destroy();
    return;
  }
  // A failed send means the host has gone, and then this process is on its way out.
  process.send?.(event, pipe, {}, () => undefined);
}

/** The events after which a request has nothing more to say. */
const FINAL = new Set<SpawnerEvent["type"]>(["exit", "exec-done", "server-exit"]);

const channel: RequestChannel = {
  send(event) {
    if (FINAL.has(event.type)) requests.delete((event as { id: number }).id);
    send(event);
  },
  handOver(event, pipe) {
    send(event, pipe);
  },
};

function failureOf(err: unknown): SpawnerFailure {
  if (err instanceof RequestFailure) return err.failure;
  const message = errorMessage(err);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return { kind: "spawn", message, ...(typeof code === "string" ? { code } : {}) };
}

function fail(id: number, err: unknown): void {
  requests.delete(id);
  send({ type: "failed", id, failure: failureOf(err) });
}

async function start(id: number, run: (signal: AbortSignal) => Promise<RunningRequest>): Promise<void> {
  const request: Request = { controller: new AbortController() };
  requests.set(id, request);
  try {
    const running = await run(request.controller.signal);
    // Ended already (an exit can come before this resumes): nothing left to steer.
    if (requests.get(id) === request) request.running = running;
  } catch (err) {
    fail(id, err);
  }
}

/** Whether the sandbox side (spawner-confine.ts, loaded on first need) may hold anything. */
let sandboxUsed = false;

/** Answer a sandbox check (spawner-sandbox-check.ts, loaded with the first one). */
async function checkSandboxFor(id: number): Promise<void> {
  try {
    const { checkSandbox } = await import("./spawner-sandbox-check.ts");
    send({ type: "sandbox-checked", id, ...(await checkSandbox()) });
  } catch (err) {
    fail(
      id,
      new RequestFailure({ kind: "internal", message: `the sandbox check failed: ${errorMessage(err)}` }),
    );
  }
}

function handle(message: unknown): void {
  const parsed = protocolSchemas().SpawnerRequest.safeParse(message);
  if (!parsed.success) {
    // Only the host's own code talks to this process: a bad message is a bug there, said loudly.
    const id = (message as { id?: unknown } | null)?.id;
    const text = `the spawner got a message it does not understand: ${parsed.error.message}`;
    if (typeof id === "number") send({ type: "failed", id, failure: { kind: "internal", message: text } });
    else process.stderr.write(`lathe spawner: ${text}\n`);
    return;
  }
  const request = parsed.data;
  switch (request.type) {
    case "pty":
      sandboxUsed ||= request.confine !== undefined;
      void start(request.id, (signal) => startPty(request, signal, channel));
      return;
    case "exec":
      sandboxUsed ||= request.confine !== undefined;
      void start(request.id, (signal) => startExec(request, signal, channel));
      return;
    case "server":
      sandboxUsed ||= request.confine !== undefined;
      void start(request.id, (signal) => startServer(request, signal, channel));
      return;
    case "sandbox-check":
      sandboxUsed = true;
      void checkSandboxFor(request.id);
      return;
    case "abort":
      requests.get(request.id)?.controller.abort(new Error("aborted by the host"));
      return;
    case "signal":
      requests.get(request.id)?.running?.signal?.(request.signal);
      return;
    case "open":
      requests.get(request.id)?.running?.open?.();
      return;
    case "warm":
      sandboxUsed = true;
      // Loaded now, off the first command's path. A failure here is not lost: the same import
      // fails again in the first request that needs it, and that request says so.
      void Promise.all([import("node-pty"), import("./spawner-confine.ts")]).catch(() => undefined);
      return;
  }
}

/**
 * The host has gone (it exited or closed the channel): end everything this process started
 * (servers too, giving back what their sandboxes hold), and exit. Bubblewrap also dies with its
 * parent, and a pty's processes get SIGHUP when its terminal closes with this process.
 */
async function shutDown(): Promise<void> {
  for (const { controller, running } of requests.values()) {
    controller.abort(new Error("the host has gone"));
    running?.kill();
  }
  try {
    if (sandboxUsed) await (await import("./spawner-confine.ts")).releaseManager();
  } finally {
    try {
      rmdirSync(home);
    } catch {
      // Not empty or already gone: an empty folder left in the temp directory is harmless.
    }
    process.exit(0);
  }
}

process.on("message", handle);
process.once("disconnect", () => void shutDown());
// A terminal's Ctrl-C goes to the host's whole process group, this process too: the host
// decides what it stops (it aborts its calls and closes its servers), and this process ends
// when the host goes.
process.on("SIGINT", () => undefined);
send({ type: "ready", pid: process.pid });
