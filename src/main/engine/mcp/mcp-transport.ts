import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadMcpSdk } from "./mcp-sdk.ts";
import type { McpServerConfig } from "../policy/lathe-settings.ts";
import { isStdio, serverCwd } from "./mcp-command-line.ts";
import type { McpServerLog } from "./mcp-server-log.ts";

/** A server's transport, and the PATH a stdio server was given (for "command not found"). */
export interface OpenedTransport {
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  path?: string;
  /** The child process id of a stdio server, once it is running. */
  pid(): number | undefined;
}

/**
 * The transport for one server: a child process over stdio (login-shell PATH plus the server's
 * `env`, stderr into the server's log) or Streamable HTTP with the configured headers.
 */
export async function openTransport(
  config: McpServerConfig,
  root: string,
  log: McpServerLog,
  pathProvider: () => Promise<string>,
): Promise<OpenedTransport> {
  const sdk = await loadMcpSdk();
  if (!isStdio(config)) {
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
    return { transport, pid: () => undefined };
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
  const transport = new sdk.StdioClientTransport({
    command: config.command,
    args: config.args,
    env,
    cwd,
    stderr: "pipe",
  });
  const stderr = transport.stderr as Readable | null;
  stderr?.setEncoding("utf8");
  stderr?.on("data", (chunk: string) => log.write(chunk));
  return { transport, path: env.PATH, pid: () => transport.pid ?? undefined };
}
