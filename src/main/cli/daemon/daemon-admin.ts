import { spawn } from "node:child_process";
import { appendFileSync, statSync, truncateSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../cli-error.ts";
import { ExitCode } from "../exit-codes.ts";
import { writeStdout } from "../output.ts";
import { shownPath, shownText } from "../shown-path.ts";
import { daemonAddress, type DaemonAddress, privateFolderProblem, socketBlocked } from "./daemon-address.ts";
import { daemonStatus, stopDaemon } from "./daemon-control.ts";
import { bundleBuild, daemonMode } from "./daemon-mode.ts";
import type { McpServerPool } from "../../engine/index.ts";

// What `lathe daemon status|start|stop|run` do (see commands/daemon-command.ts for the commands).

/** The CLI bundle this code runs from (out/cli/), when it runs from one. */
const BUNDLE_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The launcher, which starts the daemon (`lathe daemon run`). */
const LAUNCHER = path.join(BUNDLE_DIR, "..", "..", "bin", "lathe.mjs");
export const DEFAULT_IDLE_MINUTES = 15;
/** How long the daemon keeps an idle MCP server running for the next command (at most its own idle time). */
const KEEP_MCP_MINUTES = 10;
/** How many idle MCP servers the daemon keeps running at most. */
const KEEP_MCP_SERVERS = 16;
const LOG_LIMIT = 1024 * 1024;

/** This build's daemon address, or why there is none. */
function whereIs(): DaemonAddress | { why: string } {
  const build = bundleBuild(BUNDLE_DIR);
  if (build === undefined) {
    return {
      why: "lathe runs from its TypeScript sources; the daemon runs the built CLI bundle (npm run build:cli)",
    };
  }
  return daemonAddress(build);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

/** Wait until `check` is true, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** `lathe daemon status`: whether commands use a daemon, and whether one runs. */
export async function showStatus(options: { json?: boolean }): Promise<void> {
  const mode = daemonMode();
  const address = whereIs();
  const status = "why" in address ? undefined : await daemonStatus(address.socket);
  const problem = "why" in address ? undefined : privateFolderProblem(address.dir);
  /** Why commands do not use a daemon although one could run (the folder is not private). */
  const refused =
    problem && !problem.endsWith("does not exist")
      ? problem
      : "why" in address
        ? undefined
        : socketBlocked(address.socket);
  if (options.json) {
    await writeStdout(
      `${JSON.stringify({
        mode: mode.on ? "on" : "off",
        why: mode.why,
        ...("why" in address ? { unavailable: address.why } : { socket: address.socket }),
        running: status !== undefined,
        ...(refused ? { refused } : {}),
        ...(status
          ? {
              pid: status.pid,
              jobs: status.jobs,
              busy: status.busy,
              idleMinutes: status.idleMs / 60_000,
              startedAt: new Date(status.startedAt).toISOString(),
              memory: status.memory,
              mcpServers: status.mcpServers ?? [],
            }
          : {}),
      })}\n`,
    );
    return;
  }
  const lines = [
    refused && mode.on
      ? `Commands use a daemon: no, never while ${refused}.`
      : `Commands use a daemon: ${mode.on ? "yes" : "no"} (${mode.why}).`,
  ];
  if ("why" in address) lines.push(`No daemon can run: ${address.why}.`);
  else if (status) {
    lines.push(
      `Running: pid ${status.pid}, since ${new Date(status.startedAt).toISOString()}, ${status.jobs} command${status.jobs === 1 ? "" : "s"} run${status.busy ? ", running one now" : ""}; stops after ${status.idleMs / 60_000} idle minutes.`,
      `Memory: ${megabytes(status.memory.rss)} resident, ${megabytes(status.memory.heapUsed)} of it JavaScript objects.`,
      keptServersLine(status.mcpServers ?? []),
      `Socket: ${address.socket}`,
    );
  } else {
    lines.push(
      refused
        ? "Not running, and none will start until that is fixed."
        : mode.on
          ? "Not running (the next quick command, or `lathe daemon start`, starts one)."
          : "Not running, and no command starts one while it is off.",
    );
  }
  await writeStdout(`${lines.join("\n")}\n`);
}

/** `lathe daemon start`: start one in the background and wait until it answers. */
export async function startInBackground(options: { idleMinutes?: number }): Promise<void> {
  // A daemon no command would use only holds memory: say why instead of starting one.
  const mode = daemonMode();
  if (!mode.on)
    throw new CliError(
      `no daemon started: commands do not use one while it is off (${mode.why}). Set LATHE_DAEMON=on for this command and the ones that should use it.`,
      ExitCode.usage,
    );
  const address = whereIs();
  if ("why" in address) throw new CliError(`no daemon can run: ${address.why}`);
  const problem = privateFolderProblem(address.dir, true);
  if (problem)
    throw new CliError(`no daemon can run: ${problem}. Make it a folder only you can enter (chmod 700).`);
  const running = await daemonStatus(address.socket);
  if (running) {
    await writeStdout(`A daemon is already running (pid ${running.pid}); \`lathe daemon stop\` stops it.\n`);
    return;
  }
  const args = [LAUNCHER, "daemon", "run"];
  if (options.idleMinutes !== undefined) args.push("--idle-minutes", String(options.idleMinutes));
  spawn(process.execPath, args, { detached: true, stdio: "ignore" }).unref();
  const up = await until(async () => (await daemonStatus(address.socket)) !== undefined, 10_000);
  if (!up) {
    throw new CliError(
      `the daemon did not start within 10 s; its log is ${path.join(address.dir, "daemon.log")}`,
    );
  }
  const status = await daemonStatus(address.socket);
  await writeStdout(
    `Started the daemon (pid ${status?.pid ?? "?"}); it stops after ${(status?.idleMs ?? 0) / 60_000} idle minutes.\n`,
  );
}

/** `lathe daemon stop`. */
export async function stopRunning(): Promise<void> {
  const address = whereIs();
  const pid = "why" in address ? undefined : (await daemonStatus(address.socket))?.pid;
  if ("why" in address || !(await stopDaemon(address.socket))) {
    await writeStdout("No daemon is running.\n");
    return;
  }
  const gone = await until(async () => (await daemonStatus(address.socket)) === undefined, 10_000);
  if (!gone) throw new CliError("the daemon is still finishing a command; it stops when that ends");
  // Stopped means its process has ended, and with it the MCP servers it kept running.
  if (pid !== undefined && !(await until(async () => !isRunning(pid), 10_000))) {
    throw new CliError(
      `the daemon (pid ${pid}) stopped taking commands but is still stopping its MCP servers`,
    );
  }
  await writeStdout("Stopped the daemon.\n");
}

/** What `lathe daemon status` says of the MCP servers the daemon keeps running. */
function keptServersLine(servers: ReadonlyArray<{ name: string; root: string }>): string {
  if (servers.length === 0) return "MCP servers kept running for the next command: none.";
  // Several folders may each keep a server of the same name (a global one): each says whose it is.
  const named = servers.map(({ name, root }) => `${shownText(name)} in ${shownPath(root)}`);
  return `MCP servers kept running for the next command: ${servers.length} (${named.join(", ")}).`;
}

/** Whether a process with this id still runs (as this user may see it). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `lathe daemon run`: be the daemon, until it stops. */
export async function beTheDaemon(options: { idleMinutes?: number }): Promise<void> {
  const address = whereIs();
  if ("why" in address) throw new CliError(`no daemon can run: ${address.why}`);
  const problem = privateFolderProblem(address.dir, true);
  if (problem) throw new CliError(`no daemon can run: ${problem}`);
  const logFile = path.join(address.dir, "daemon.log");
  process.on("uncaughtExceptionMonitor", (err) => log(`failed: ${err.stack ?? err.message}`));
  if ((statSync(logFile, { throwIfNoEntry: false })?.size ?? 0) > LOG_LIMIT) truncateSync(logFile, 0);
  const log = (line: string): void => {
    try {
      appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
    } catch {
      // A log that cannot be written costs only the log.
    }
  };
  // Another daemon already answers: nothing to do.
  if (await daemonStatus(address.socket)) return;
  const build = bundleBuild(BUNDLE_DIR) as string;
  // Never hold a person's folder open: the daemon waits in its own.
  process.chdir(address.dir);
  const [{ main }, { serveDaemon }, { claimSocket }] = await Promise.all([
    import("../main.ts"),
    import("../daemon/daemon-server.ts"),
    import("../daemon/daemon-socket-claim.ts"),
  ]);
  await claimSocket(address.socket).catch((err: unknown) => {
    log(`cannot start: ${(err as Error).message}`);
    throw err;
  });
  const idleMs = (options.idleMinutes ?? DEFAULT_IDLE_MINUTES) * 60_000;
  let pool: McpServerPool | undefined;
  const serving = serveDaemon({
    socket: address.socket,
    build,
    idleMs,
    // Kept servers started for another environment go first: see McpServerPool.retireOtherEnvironments.
    run: async (argv) => {
      await pool?.retireOtherEnvironments();
      return main(argv);
    },
    stillCurrent: () => bundleBuild(BUNDLE_DIR) === build,
    log,
    keptServers: () => pool?.keptFor() ?? [],
  });
  // A daemon that cannot listen says so in its log (its stderr goes nowhere).
  serving.catch((err: unknown) => log(`cannot listen: ${(err as Error).message}`));
  // Loaded now, so the first command is as quick as the next ones. Idle MCP servers are kept
  // running between commands: the next command in the same folder does not wait for their start.
  await import("../../engine/index.ts")
    .then(async ({ keepMcpServersRunning }) => {
      pool = await keepMcpServersRunning({
        idleMs: Math.min(idleMs, KEEP_MCP_MINUTES * 60_000),
        max: KEEP_MCP_SERVERS,
        log,
      });
    })
    .catch((err: unknown) => log(`preloading the engine failed: ${(err as Error).message}`));
  await serving;
  await pool?.close();
}
