import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { installRoot } from "../../engine/light.ts";
import { CliError } from "../cli-error.ts";
import { portOption, rootOf, rootOption } from "../cli-options.ts";
import { onStopSignals } from "../interrupt.ts";
import { openEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";

/** The built renderer, in the folder Lathe is installed in. */
function rendererDir(): string {
  return path.join(installRoot(), "out", "renderer");
}

/** A port that cannot be listened on, said as what to do (Node's own message names only the errno). */
function listenFailure(err: unknown, port: number): CliError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") {
    return new CliError(
      `Port ${port} on 127.0.0.1 is already in use (by another program, or another lathe serve). Pass another --port, or leave --port out to get any free port.`,
    );
  }
  if (code === "EACCES") {
    return new CliError(
      `Port ${port} on 127.0.0.1 may not be used by this user (ports below 1024 need privileges). Pass a --port from 1024 to 65535, or leave --port out to get any free port.`,
    );
  }
  return undefined;
}

/**
 * `lathe serve [--root DIR] [--port N]`: the built UI and the app's API over a loopback
 * WebSocket, guarded by the token in the printed URL. Runs until SIGINT or SIGTERM.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("Serve the app's UI and API on 127.0.0.1 and print its URL (with the access token).")
    .addOption(rootOption())
    .addOption(portOption())
    .action(async (options: { root?: string; port: number }) => {
      const renderer = rendererDir();
      if (!existsSync(path.join(renderer, "index.html"))) {
        throw new CliError("The app is not built: run `npm run build` first.");
      }
      // The listeners stay until the server and the engine are closed (see onStopSignals).
      let stopListening = (): void => undefined;
      const stopped = new Promise<void>((resolve) => {
        stopListening = onStopSignals(() => resolve());
      });
      // A stdio MCP server that would start without the OS sandbox waits for the page to ask the person.
      const { UnsandboxedMcpGate } = await import("../../api/unsandboxed-mcp-gate.ts");
      const unsandboxedMcp = new UnsandboxedMcpGate();
      const engine = await openEngine(rootOf(options), {
        approveUnsandboxedMcp: unsandboxedMcp.approver,
      }).catch((err: unknown) => {
        stopListening();
        throw err;
      });
      try {
        const { startServe } = await import("../../serve/serve-server.ts");
        const server = await startServe({
          engine,
          port: options.port,
          rendererDir: renderer,
          unsandboxedMcp,
        }).catch((err: unknown) => {
          throw listenFailure(err, options.port) ?? err;
        });
        await writeStdout(`lathe serve: ${server.url}\n`);
        await stopped;
        await server.close();
      } finally {
        try {
          await engine.close();
        } finally {
          stopListening();
        }
      }
    });
}
