import { type Command, InvalidArgumentError } from "commander";
import type { ExitStatus } from "../exit-codes.ts";

function parseMinutes(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > 24 * 60) {
    throw new InvalidArgumentError("Use a number of minutes above 0, at most 1440 (a day).");
  }
  return n;
}

/**
 * `lathe daemon status|start|stop`: the background process that runs `lathe tools`, `call` and
 * `batch` without a start-up each time (see src/main/cli/daemon/). `lathe daemon run` is the
 * daemon itself (started by `start`, or by the first quick command when none listens).
 */
export function registerDaemonCommand(program: Command, _result: ExitStatus): void {
  const daemon = program
    .command("daemon")
    .description(
      // The commands are daemon-mode.ts's DAEMON_COMMANDS (not imported: `lathe --help` stays light).
      "The background process that runs `lathe tools`, `call`, `batch` and `run` without starting Lathe each time.",
    )
    .addHelpText(
      "after",
      `
When no daemon is running, the first of those commands starts one in the background and runs as
before; the next ones run in it, with the caller's folder, environment, stdin and terminal, and
Ctrl-C as usual. There is one daemon per Lathe build and data folder (LATHE_HOME); it stops after
being idle (15 minutes unless started with --idle-minutes), when Lathe is rebuilt or upgraded, and
after a command that had to be cut short. LATHE_DAEMON=off turns it off; under CI (CI is set) it is
off unless LATHE_DAEMON=on. Its socket lives in LATHE_HOME/run/, which no sandboxed process can see.
It keeps a folder's idle MCP servers running (10 minutes) for the next command that would start
exactly the same server with the same environment; \`lathe daemon status\` names them.`,
    );

  daemon
    .command("status")
    .description("Say whether a daemon is running for this data folder, and whether commands use it.")
    .option(
      "--json",
      "print {mode, why, socket, running, refused?, pid?, jobs?, busy?, idleMinutes?, startedAt?, memory?, mcpServers?} (unavailable instead of socket when none can run)",
    )
    .action(async (options: { json?: boolean }) => {
      const { showStatus } = await import("../daemon/daemon-admin.ts");
      await showStatus(options);
    });

  daemon
    .command("start")
    .description("Start the daemon now (the first quick command would start it anyway).")
    .option("--idle-minutes <n>", `stop after this many minutes without a command (default 15)`, parseMinutes)
    .action(async (options: { idleMinutes?: number }) => {
      const { startInBackground } = await import("../daemon/daemon-admin.ts");
      await startInBackground(options);
    });

  daemon
    .command("stop")
    .description("Stop the daemon (after the command it is running, if any).")
    .action(async () => {
      const { stopRunning } = await import("../daemon/daemon-admin.ts");
      await stopRunning();
    });

  daemon
    .command("run", { hidden: true })
    .description("Be the daemon, in the foreground (what `start` runs in the background).")
    .option("--idle-minutes <n>", "stop after this many minutes without a command", parseMinutes)
    .action(async (options: { idleMinutes?: number }) => {
      const { beTheDaemon } = await import("../daemon/daemon-admin.ts");
      await beTheDaemon(options);
    });
}
