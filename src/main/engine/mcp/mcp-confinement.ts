import { rm } from "node:fs/promises";
import path from "node:path";
import type { EngineSandbox } from "../sandbox/engine-sandbox.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { serverCommandFiles } from "../policy/protected-paths.ts";
import { expandHome } from "../sandbox/sandbox-settings.ts";
import { makeOwnedTempDir } from "../temp/owned-temp-dir.ts";
import { serverCwd, type McpStdioConfig } from "./mcp-command-line.ts";

/** Folders of `$LATHE_HOME` that hold what Lathe keeps of every folder's work. */
const PRIVATE_FOLDERS = ["sessions", "checkpoints", "logs"];

/**
 * What the server must read of its own although the sandbox hides `$LATHE_HOME` (a person may
 * keep a server's script and files there): the files its command line names, and the folder of
 * each (the modules a script loads) unless that is `$LATHE_HOME` itself or one of its private
 * folders, which would open what the hiding is for.
 */
function ownFiles(config: McpStdioConfig, root: string, latheHome: string): string[] {
  const within = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}/`);
  const out: string[] = [];
  for (const file of serverCommandFiles(config, root)) {
    if (!within(file, latheHome)) continue;
    out.push(file);
    const dir = path.dirname(file);
    if (dir !== latheHome && !PRIVATE_FOLDERS.some((name) => within(dir, path.join(latheHome, name))))
      out.push(dir);
  }
  return out;
}

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
    temp ??= makeOwnedTempDir(`mcp-${name}`).catch((err: unknown) => {
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
      readable: [
        ...(config.allowRead ?? []).map(expandHome),
        ...ownFiles(config, root, engineSandbox.protectedPaths.latheHome),
      ],
      longRunning: true,
    }),
    async dispose() {
      const dir = await temp?.catch(() => undefined);
      temp = undefined;
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
