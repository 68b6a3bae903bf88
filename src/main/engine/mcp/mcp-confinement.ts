import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { EngineSandbox } from "../sandbox/engine-sandbox.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { expandHome } from "../sandbox/sandbox-settings.ts";
import { serverCwd, type McpStdioConfig } from "./mcp-command-line.ts";

/** The OS sandbox of one stdio MCP server, and its temp folder to remove when it is done. */
export interface ServerConfinement {
  sandbox: ProcessSandbox;
  /** Remove the server's temp folder (after its process has ended). */
  dispose(): Promise<void>;
}

/**
 * Where a stdio MCP server may write and connect inside the OS sandbox: the workspace and its
 * working folder, a temp folder of its own, `sandbox.allowWrite`; the hosts of
 * `sandbox.allowNetwork` and its own `allowNetwork`; what `sandbox.denyRead` hides, save its own
 * `allowRead`. Its files and the other protected paths stay
 * read-only (a server cannot rewrite the script it starts from next time).
 */
export function serverConfinement(
  engineSandbox: EngineSandbox,
  name: string,
  config: McpStdioConfig,
  root: string,
): ServerConfinement {
  let temp: Promise<string> | undefined;
  const tempDir = (): Promise<string> => {
    temp ??= mkdtemp(path.join(os.tmpdir(), `lathe-mcp-${name}-`)).catch((err: unknown) => {
      temp = undefined;
      throw err;
    });
    return temp;
  };
  return {
    sandbox: engineSandbox.scope({
      tempDir,
      writable: [serverCwd(config, root)],
      network: config.allowNetwork ?? [],
      ...(config.allowRead ? { readable: config.allowRead.map(expandHome) } : {}),
      longRunning: true,
    }),
    async dispose() {
      const dir = await temp?.catch(() => undefined);
      temp = undefined;
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
