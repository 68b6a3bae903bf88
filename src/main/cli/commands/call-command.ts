import type { Command } from "commander";
import type { Engine, Session } from "../../engine/index.ts";
import { callNeedsExtensions } from "../../engine/light.ts";
import { runCallBatch } from "../call-batch.ts";
import { type Mode, modeOption, parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { ExitCode, type ExitStatus } from "../exit-codes.ts";
import { stopOnInterrupt } from "../interrupt.ts";
import { withEngine } from "../open-engine.ts";
import { writeStderr, writeStdout } from "../output.ts";
import { printPluginLogs } from "../plugin-log-printer.ts";
import { readStdin } from "../read-stdin.ts";

interface CallOptions {
  root?: string;
  session?: string;
  mode?: Mode;
  verbose?: boolean;
}

/** How long a stopped `lathe call` may take to wind down: bash's SIGTERM, SIGKILL a second later, then its checkpoint scan. */
const CALL_STOP_GRACE_MS = 5_000;

/** The options `call` and `batch` share: the folder, the session, the approval mode, the plugins' logs. */
function withCallOptions(command: Command): Command {
  return command
    .addOption(rootOption())
    .option(
      "--session <id>",
      "use (or start) the persistent session <id> until `lathe session close <id>`",
      parseSessionId,
    )
    .addOption(modeOption())
    .option(
      "--verbose",
      "print the plugin's log lines (runtime.log, console) and restarts to stderr as they come",
    );
}

/**
 * Run `fn` in the session the options name (a fresh one that ends with the command, without
 * --session). `watch`: plugin folders are watched while it runs (see withEngine). `extensions`:
 * false when no plugin or MCP server can take part (one call of a built-in such as `read`).
 */
function inSession<T>(
  options: CallOptions,
  fn: (session: Session, engine: Engine) => Promise<T>,
  { watch = false, extensions = true }: { watch?: boolean; extensions?: boolean } = {},
): Promise<T> {
  return withEngine(
    rootOf(options),
    async (engine) => {
      if (options.verbose === true) printPluginLogs(engine);
      const session = await engine.openSession({
        ...(options.session !== undefined ? { id: options.session } : {}),
        ...(options.mode !== undefined ? { mode: options.mode } : {}),
      });
      // Ephemeral sessions end with the engine; a persistent one is only released.
      return fn(session, engine);
    },
    { watchExtensions: watch, extensions },
  );
}

/**
 * `lathe call <tool-id> [<json-args> | -]`: one call through the whole pipeline. Prints exactly
 * one envelope as one line of JSON; exits 0 for an `output` envelope and 1 for an `error`.
 * `lathe batch`: many calls read from stdin, one per line, in one process and one session.
 */
export function registerCallCommands(program: Command, result: ExitStatus): void {
  withCallOptions(
    program
      .command("call")
      .description("Run one tool call and print its envelope as one line of JSON.")
      .argument("<tool-id>", "the tool to call (see `lathe tools`)")
      .argument("[json-args]", 'the arguments as one JSON object, or "-" to read them from stdin', "{}"),
  )
    .addHelpText(
      "after",
      `
Exit codes: 0 the envelope is "output", 1 it is "error" (or no call could be made), 2 usage error.

Examples:
  lathe call glob '{"pattern":"**/*.ts"}'
  echo '{"path":"README.md"}' | lathe call read -
  lathe call read '{"path":"a.txt"}' --session s1 && lathe call write '{"path":"a.txt","content":"hi"}' --session s1 --mode yolo

Many calls in a row: \`lathe batch\` runs them in one process (one start-up, one session).`,
    )
    .action(async (toolId: string, jsonArgs: string, options: CallOptions) => {
      const rawArgs = jsonArgs === "-" ? await readStdin() : jsonArgs;
      // Ctrl-C or SIGTERM stop the call as its timeout would: a command is stopped, and what it
      // changed meanwhile is still checkpointed (killed outright, it would not be, and the
      // person could not restore it). The grace covers bash's SIGTERM-then-SIGKILL second and
      // the scan after it.
      const controller = new AbortController();
      const stopListening = stopOnInterrupt(controller, {
        graceMs: CALL_STOP_GRACE_MS,
        lastWord: () =>
          "stopped before the call wound down: what it changed may not be in a checkpoint (see lathe checkpoints).",
      });
      try {
        // A built-in that no plugin or MCP tool can reach or shadow runs without loading them:
        // with 300 plugins, reading and checking every folder took longer than the call.
        const envelope = await inSession(
          options,
          (session) => session.call(toolId, rawArgs, { signal: controller.signal }),
          { extensions: callNeedsExtensions(toolId) },
        );
        await writeStdout(`${JSON.stringify(envelope)}\n`);
        result.exitCode = envelope.type === "output" ? ExitCode.ok : ExitCode.failure;
      } finally {
        stopListening();
      }
    });

  withCallOptions(
    program
      .command("batch")
      .description(
        "Run tool calls read from stdin, one per line (<tool-id> [json-args]), in one process and one session; print one envelope per call.",
      ),
  )
    .addHelpText(
      "after",
      `
Each line is what would follow \`lathe call\`: a tool id, then its arguments as one JSON object
({} when there are none). Blank lines and lines that start with # are skipped. The calls run in
one session, in order as an agent's calls do: reads side by side, and a call that changes
something after every call before it and before every call after it (so a write may follow its
read). Output line N answers call N, printed as soon as calls 1 to N have ended. A line that is
no valid call gets its error envelope and the batch goes on. A plugin edited while the batch runs
is reloaded before the next call. Ctrl-C cancels the running calls and reads no further line.

Exit codes: 0 every envelope is "output", 1 any is "error" (or the batch was stopped), 2 usage error.

Example:
  printf '%s\\n' 'read {"path":"a.txt"}' 'write {"path":"a.txt","content":"hi"}' | lathe batch --mode yolo`,
    )
    .action(async (options: CallOptions) => {
      // Typed at a terminal, nothing would say that lathe is waiting, or how to end.
      if (process.stdin.isTTY) {
        await writeStderr(
          "lathe batch: reading calls from the terminal, one per line (<tool-id> [json-args]); Ctrl-D ends.\n",
        );
      }
      const controller = new AbortController();
      const stopListening = stopOnInterrupt(controller);
      try {
        // A plugin edited while the batch runs is reloaded before the next call, as in the app.
        const tally = await inSession(
          options,
          (session, engine) =>
            runCallBatch(session, process.stdin, writeStdout, controller.signal, {
              pending: () => engine.hasPendingChanges(),
              apply: () => engine.applyPendingChanges(),
            }),
          { watch: true },
        );
        if (tally.lost !== undefined)
          await writeStderr(`lathe batch: ${tally.lost} No further line was read.\n`);
        const clean = tally.failed === 0 && !controller.signal.aborted && tally.lost === undefined;
        result.exitCode = clean ? ExitCode.ok : ExitCode.failure;
      } finally {
        stopListening();
      }
    });
}
