import type { Command } from "commander";
import { modeOption, rootOf, rootOption, type Mode } from "../cli-options.ts";
import { ExitCode, type ExitStatus } from "../exit-codes.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";
import { printPluginLogs } from "../plugin-log-printer.ts";
import { readStdin } from "../read-stdin.ts";

interface CallOptions {
  root?: string;
  session?: string;
  mode?: Mode;
  verbose?: boolean;
}

/**
 * `lathe call <tool-id> [<json-args> | -]`: one call through the whole pipeline. Prints exactly
 * one envelope as one line of JSON; exits 0 for an `output` envelope and 1 for an `error`.
 */
export function registerCallCommand(program: Command, result: ExitStatus): void {
  program
    .command("call")
    .description("Run one tool call and print its envelope as one line of JSON.")
    .argument("<tool-id>", "the tool to call (see `lathe tools`)")
    .argument("[json-args]", 'the arguments as one JSON object, or "-" to read them from stdin', "{}")
    .addOption(rootOption())
    .option("--session <id>", "use (or start) the persistent session <id> until `lathe session close <id>`")
    .addOption(modeOption())
    .option(
      "--verbose",
      "print the plugin's log lines (runtime.log, console) and restarts to stderr as they come",
    )
    .addHelpText(
      "after",
      `
Exit codes: 0 the envelope is "output", 1 it is "error" (or no call could be made), 2 usage error.

Examples:
  lathe call glob '{"pattern":"**/*.ts"}'
  echo '{"path":"README.md"}' | lathe call read -
  lathe call read '{"path":"a.txt"}' --session s1 && lathe call write '{"path":"a.txt","content":"hi"}' --session s1`,
    )
    .action(async (toolId: string, jsonArgs: string, options: CallOptions) => {
      const rawArgs = jsonArgs === "-" ? await readStdin() : jsonArgs;
      const envelope = await withEngine(rootOf(options), async (engine) => {
        if (options.verbose === true) printPluginLogs(engine);
        const session = await engine.openSession({
          ...(options.session !== undefined ? { id: options.session } : {}),
          ...(options.mode !== undefined ? { mode: options.mode } : {}),
        });
        // Ephemeral sessions end with the engine; a persistent one is only released.
        return session.call(toolId, rawArgs);
      });
      await writeStdout(`${JSON.stringify(envelope)}\n`);
      result.exitCode = envelope.type === "output" ? ExitCode.ok : ExitCode.failure;
    });
}
