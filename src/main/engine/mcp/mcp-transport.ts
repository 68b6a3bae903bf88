import { access, constants, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadMcpSdk } from "./mcp-sdk.ts";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import { shellWord } from "../sandbox/shell-word.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { WrappedLine } from "../spawner/spawner-client.ts";
import { isStdio, serverCwd } from "./mcp-command-line.ts";
import type { McpServerLog } from "./mcp-server-log.ts";

/** A server's transport, and the PATH a stdio server was given (for "command not found"). */
export interface OpenedTransport {
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  path?: string;
  /** The child process id of a stdio server, once it is running. */
  pid(): number | undefined;
  /** Let go of what starting it took (its OS sandbox); idempotent, also done when it exits. */
  release(): void;
}

/** Whether `command` names an executable file, as the shell would look it up. */
async function executable(command: string, PATH: string, cwd: string): Promise<boolean> {
  const candidates = command.includes("/")
    ? [path.resolve(cwd, command)]
    : PATH.split(":")
        .filter((dir) => dir !== "")
        .map((dir) => path.resolve(cwd, dir, command));
  for (const file of candidates) {
    const found = await access(file, constants.X_OK).then(
      () => stat(file).then((s) => s.isFile()),
      () => false,
    );
    if (found) return true;
  }
  return false;
}

/**
 * The transport for one server: a child process over stdio (login-shell PATH plus the server's
 * `env`, stderr into the server's log) or Streamable HTTP with the configured headers. With an
 * active `sandbox` the child runs in the OS sandbox (bubblewrap on Linux, Seatbelt on macOS),
 * started through bash.
 */
export async function openTransport(
  config: McpServerConfig,
  root: string,
  log: McpServerLog,
  pathProvider: () => Promise<string>,
  sandbox?: ProcessSandbox,
): Promise<OpenedTransport> {
  const sdk = await loadMcpSdk();
  if (!isStdio(config)) {
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return { transport, pid: () => undefined, release: () => undefined };
  }
  const cwd = serverCwd(config, root);
  const isDir = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new Error(`its working folder ${cwd} does not exist. Fix "cwd" in the server's settings.`);
  const PATH = await pathProvider();
  const env: Record<string, string> = { PATH, ...config.env };
  let confined: (WrappedLine & { env: Record<string, string> }) | undefined;
  if (sandbox?.status.active) {
    // Started through bash in the sandbox, a missing command would only say "command not found"
    // on stderr: look it up first and fail as a direct start would.
    if (!(await executable(config.command, PATH, cwd)))
      throw Object.assign(new Error(`spawn ${config.command} ENOENT`), { code: "ENOENT" });
    const confinement = await sandbox.confinement();
    // Wrapped by the process spawner (the sandbox library's own lookups run there); the server
    // itself is this process's child, which talks to it over its pipes.
    const { processSpawner } = await import("../spawner/process-spawner.ts");
    const wrapped = await processSpawner().wrap(
      [config.command, ...config.args].map(shellWord).join(" "),
      confinement.spec,
    );
    confined = { ...wrapped, env: confinement.env };
  }
  const transport = new sdk.StdioClientTransport({
    ...(confined
      ? { command: "/bin/bash", args: ["-c", confined.line], env: { ...env, ...confined.env } }
      : { command: config.command, args: config.args, env }),
    cwd,
    stderr: "pipe",
  });
  const release = (): void => {
    confined?.release();
  };
  // Set before the client connects, which keeps it and calls it after its own.
  transport.onclose = release;
  const stderr = transport.stderr as Readable | null;
  stderr?.setEncoding("utf8");
  stderr?.on("data", (chunk: string) => log.write(chunk));
  return { transport, path: env.PATH, pid: () => transport.pid ?? undefined, release };
}
