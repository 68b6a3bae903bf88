import { Command, CommanderError } from "commander";
import { latheVersion } from "../engine/light.ts";
import { CliError } from "./cli-error.ts";
import { registerAuditCommand } from "./commands/audit-command.ts";
import { registerCallCommands } from "./commands/call-command.ts";
import { registerCheckpointCommands } from "./commands/checkpoints-command.ts";
import { registerDaemonCommand } from "./commands/daemon-command.ts";
import { registerDoctorCommand } from "./commands/doctor-command.ts";
import { registerPluginCommand } from "./commands/plugin-command.ts";
import { registerRunCommand } from "./commands/run-command.ts";
import { registerServeCommand } from "./commands/serve-command.ts";
import { registerSessionCommand } from "./commands/session-command.ts";
import { registerToolsCommand } from "./commands/tools-command.ts";
import { registerTrustCommand } from "./commands/trust-command.ts";
import { ExitCode, type ExitCodeValue, type ExitStatus } from "./exit-codes.ts";
import { watchOutput, writeIfOpen } from "./closed-output.ts";
import { describeError, writeStderr, writeStdout } from "./output.ts";

/** The line a usage error ends with, whether commander or a command found the command line wrong. */
const USAGE_HINT = '(run "lathe --help" or "lathe <command> --help" for usage)';

/** Adds a command; `argv` is the whole command line, for what must be known before it is parsed. */
type Register = (program: Command, result: ExitStatus, argv: readonly string[]) => void;

/** What adds each top-level command to the program, in the order the help lists them. */
const COMMANDS: ReadonlyArray<readonly [names: readonly string[], register: Register]> = [
  [["tools"], registerToolsCommand],
  [["call", "batch"], registerCallCommands],
  [["run"], registerRunCommand],
  [["session"], registerSessionCommand],
  [["serve"], registerServeCommand],
  [["trust"], registerTrustCommand],
  [["audit"], registerAuditCommand],
  [["checkpoints", "restore", "rewind"], registerCheckpointCommands],
  [["doctor"], registerDoctorCommand],
  [["plugin"], registerPluginCommand],
  [["daemon"], registerDaemonCommand],
];

/**
 * The commands to add for this command line: only the one it names when its first word is a
 * command (its help, options and errors are its own), else all of them (the program's help, a
 * mistyped command and its suggestion). Building every command's options costs milliseconds.
 */
function commandsFor(argv: readonly string[]): Register[] {
  const named = COMMANDS.find(([names]) => names.includes(argv[0] ?? ""));
  return named ? [named[1]] : COMMANDS.map(([, register]) => register);
}

/** The `lathe` program. Errors surface as exceptions (exitOverride) so `main` picks the exit code. */
function buildProgram(result: ExitStatus, argv: readonly string[]): Command {
  const program = new Command("lathe")
    .description("Lathe's tool runtime, headless: list tools, call one, manage sessions, serve the UI.")
    .version(latheVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showHelpAfterError(USAGE_HINT)
    .configureOutput({
      writeOut: (text) => writeIfOpen(process.stdout, text),
      writeErr: (text) => writeIfOpen(process.stderr, text),
    })
    .addHelpText(
      "after",
      `
Environment:
  LATHE_HOME   Lathe's data folder (settings, trust, sessions, audit database); default ~/.lathe
  LATHE_DEBUG  set to 1 to print stack traces with errors
  LATHE_DAEMON on or off: whether tools, call, batch and run run in a background daemon (default on, off under CI)

Exit codes: 0 success, 1 failure (for call and batch: an error envelope), 2 usage error.`,
    );
  for (const register of commandsFor(argv)) register(program, result, argv);
  return program;
}

/** Run the CLI with the given arguments (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<ExitCodeValue> {
  const result: ExitStatus = { exitCode: ExitCode.ok };
  // A reader that goes away (`lathe audit | head`) ends the output quietly, never with a trace.
  const outputFailed = (error: Error): void => {
    result.exitCode = ExitCode.failure;
    writeIfOpen(process.stderr, `error: cannot write the output: ${error.message}\n`);
  };
  watchOutput(process.stdout, outputFailed);
  watchOutput(process.stderr);
  let code: ExitCodeValue;
  try {
    await buildProgram(result, argv).parseAsync([...argv], { from: "user" });
    code = result.exitCode;
  } catch (err) {
    code = await report(err);
  }
  // Hand every pending byte to the OS before the caller exits.
  await writeStdout("");
  await writeStderr("");
  return code;
}

async function report(err: unknown): Promise<ExitCodeValue> {
  // Commander has already printed its message (or the help/version it was asked for).
  if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (err instanceof CliError) {
    // A usage error a command found (a --model naming no provider, --replay without --resume)
    // reads as one commander found does: the problem, then where the usage is.
    const hint = err.exitCode === ExitCode.usage ? `${USAGE_HINT}\n` : "";
    await writeStderr(`error: ${err.message}\n${hint}`);
    return err.exitCode;
  }
  await writeStderr(`error: ${describeError(err)}\n`);
  return ExitCode.failure;
}
