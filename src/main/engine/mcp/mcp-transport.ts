import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadMcpSdk } from "./mcp-sdk.ts";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import { withoutHiddenEnv } from "../sandbox/hidden-env.ts";
import { shellWord } from "../sandbox/shell-word.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { lookUpProgram } from "../spawner/program-lookup.ts";
import type { SpawnerConfinement } from "../spawner/spawner-protocol.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { isStdio, serverCwd, type McpStdioConfig } from "./mcp-command-line.ts";
import type { McpServerLog } from "./mcp-server-log.ts";
import { feedStderr } from "./server-stderr.ts";
import { SpawnedStdioTransport } from "./spawned-stdio-transport.ts";
import { mountsUnchanged } from "./mount-stamps.ts";
import { startFileStamps } from "./start-file-stamps.ts";

/** A server's transport, and the PATH a stdio server was given (for "command not found"). */
export interface OpenedTransport {
  transport: SpawnedStdioTransport | StdioClientTransport | StreamableHTTPClientTransport;
  path?: string;
  /** The child process id of a stdio server, once it is running. */
  pid(): number | undefined;
  /** Where the server's stderr goes from now on (a kept server's next engine has a log of its own). */
  logTo(log: McpServerLog): void;
  /** Settles once the server's stderr has ended (at once for a server without one). */
  stderrEnded: Promise<void>;
  /** Once the server is stopped: its stderr read to the end into its log, within a bound (StderrFeed.finish). */
  finishLog(): Promise<void>;
  /**
   * For a confined stdio server the process spawner starts: what exactly would start — program,
   * arguments, folder, every environment variable, the sandbox's whole reach, the environment
   * of the spawner, and the files it starts from as they are now (startFileStamps) — as a digest. Two starts with the same identity run the same
   * process in the same confinement, save the name of the server's own temp folder. Undefined
   * for the others (HTTP, unconfined), which are never kept running for another engine.
   */
  identity?: string;
  /**
   * For a confined stdio server: whether every file and folder its sandbox mounted is still the
   * one the path names (see mountsUnchanged); one replaced since must not be handed on.
   */
  mountsUnchanged?: () => boolean;
}

/**
 * The digest of a spawn request, its own temp folder's name left out, with the stamps of the files
 * it starts from (see OpenedTransport.identity and startFileStamps).
 */
function spawnIdentity(
  request: unknown,
  spawner: string,
  tempDir: string | undefined,
  files: readonly string[],
): string {
  let text = stableStringify({ request, spawner, files });
  if (tempDir !== undefined && tempDir !== "") text = text.split(tempDir).join("\u0000own-temp");
  return createHash("sha256").update(text).digest("hex");
}

/**
 * What a stdio server's process starts with: the few variables the SDK's own stdio transport
 * passes on (HOME, USER, SHELL, TERM…) less those `hidden` withholds (Lathe's keys,
 * `sandbox.denyEnv`), the login shell's PATH, the variables of Lathe's environment its
 * `allowEnv` names (a missing one is noted in its log), then its own `env`, which always reaches it.
 */
function serverEnv(
  config: McpStdioConfig,
  defaults: Record<string, string>,
  PATH: string,
  hidden: readonly string[],
  log: McpServerLog,
): Record<string, string> {
  const allow = config.allowEnv ?? [];
  const env: Record<string, string> = { ...withoutHiddenEnv(defaults, hidden, allow), PATH };
  for (const name of allow) {
    const value = process.env[name];
    if (value === undefined)
      log.note(
        `allowEnv names ${name}, which is not set in Lathe's environment: the server starts without it`,
      );
    else env[name] = value;
  }
  return { ...env, ...config.env };
}

/**
 * The transport for one server: a child process over stdio (its environment from serverEnv,
 * stderr into the server's log), started by the process spawner when the client connects,
 * or Streamable HTTP with the configured headers. With an active `sandbox` the child runs in the
 * OS sandbox (bubblewrap on Linux, Seatbelt on macOS), started through bash.
 */
export async function openTransport(
  config: McpServerConfig,
  root: string,
  log: McpServerLog,
  pathProvider: () => Promise<string>,
  hiddenEnv: readonly string[],
  sandbox?: ProcessSandbox,
): Promise<OpenedTransport> {
  const sdk = await loadMcpSdk();
  if (!isStdio(config)) {
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return {
      transport,
      pid: () => undefined,
      logTo: () => undefined,
      stderrEnded: Promise.resolve(),
      finishLog: () => Promise.resolve(),
    };
  }
  const cwd = serverCwd(config, root);
  const isDir = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new Error(`its working folder ${cwd} does not exist. Fix "cwd" in the server's settings.`);
  const PATH = await pathProvider();
  const env = serverEnv(config, sdk.getDefaultEnvironment(), PATH, hiddenEnv, log);
  const searched = env.PATH;
  let confine: SpawnerConfinement | undefined;
  let tempDir: string | undefined;
  let program: string | undefined;
  if (sandbox?.status.active) {
    // Started through bash in the sandbox, a missing command would only say "command not found"
    // on stderr: look it up first and fail as a direct start would. On the PATH the server gets
    // (its own `env` may set one), which is where bash looks.
    const found = lookUpProgram(config.command, searched ?? PATH, cwd);
    if ("code" in found)
      throw Object.assign(new Error(`spawn ${config.command} ${found.code}`), {
        code: found.code,
        // What was searched, for the error a person reads (no transport is returned to carry it).
        ...(searched === undefined ? {} : { path: searched }),
      });
    program = found.file;
    const confinement = await sandbox.confinement();
    confine = confinement.spec;
    tempDir = confinement.env.TMPDIR;
    Object.assign(env, confinement.env);
  }
  if (process.platform === "win32") {
    // Windows starts a process without copying the starter (no fork), so the host starting it
    // blocks nothing; and the spawner's hand-over of pipes needs a POSIX shell and descriptors.
    // (No OS sandbox is active there: such a server runs only with a person's approval.)
    const transport = new sdk.StdioClientTransport({
      command: config.command,
      args: config.args,
      env,
      cwd,
      stderr: "pipe",
    });
    const stderr = feedStderr(transport.stderr as Readable | null, log);
    return {
      transport,
      ...(searched === undefined ? {} : { path: searched }),
      pid: () => transport.pid ?? undefined,
      logTo: (next) => stderr.logTo(next),
      stderrEnded: stderr.ended,
      finishLog: () => stderr.finish(),
    };
  }
  const { processSpawner, spawnerEnvironment } = await import("../spawner/process-spawner.ts");
  const request = {
    file: config.command,
    args: config.args,
    line: [config.command, ...config.args].map(shellWord).join(" "),
    cwd,
    env,
    ...(confine ? { confine } : {}),
  };
  const transport = new SpawnedStdioTransport(() => processSpawner().server(request), sdk);
  const stderr = feedStderr(transport.stderr, log);
  return {
    transport,
    ...(searched === undefined ? {} : { path: searched }),
    pid: () => transport.pid,
    logTo: (next) => stderr.logTo(next),
    stderrEnded: stderr.ended,
    finishLog: () => stderr.finish(),
    ...(confine
      ? {
          identity: spawnIdentity(
            request,
            spawnerEnvironment(),
            tempDir,
            startFileStamps(config, root, program),
          ),
          mountsUnchanged: mountsUnchanged(confine),
        }
      : {}),
  };
}
