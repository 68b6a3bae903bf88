import type { Command } from "commander";
import { CliError } from "../cli-error.ts";
import { parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { ExitCode } from "../exit-codes.ts";
import { stopOnInterrupt } from "../interrupt.ts";
import { closeEngine } from "../open-engine.ts";
import { describeError, writeStderr, writeStdout } from "../output.ts";
import { shownLines } from "../shown-path.ts";
import { modelOption } from "./run-command.ts";

interface CompactOptions {
  root?: string;
  model?: string;
}

/**
 * `lathe session compact <ID>`: summarise a session's older conversation now, with its model (or
 * `--model`), as a run does when the context fills. A command rather than a chat word because
 * `lathe run` sends its prompt to the model as it is; this is something done to a session, like
 * rename or rewind, and it prints what it did.
 */
export function registerSessionCompactCommand(session: Command): void {
  session
    .command("compact")
    .description(
      "Summarise a session's older conversation now, as a run does when the model's context fills: the model is then sent the summary in place of those messages, which stay recorded (a rewind to before it sends them again).",
    )
    .argument("<id>", "the session id", parseSessionId)
    .addOption(rootOption())
    .addOption(modelOption())
    .action(async (id: string, options: CompactOptions) => {
      const controller = new AbortController();
      // A summary is recorded in one write: a process ended before it wound down recorded none.
      const release = stopOnInterrupt(controller, {
        lastWord: () => `stopped: session ${id} was left as it was.`,
      });
      try {
        await compact(id, options, controller.signal);
      } finally {
        release();
      }
    });
}

async function compact(id: string, options: CompactOptions, signal: AbortSignal): Promise<void> {
  const agentModule = await import("../../engine/agent/index.ts");
  let setup: Awaited<ReturnType<typeof agentModule.setupAgentRun>>;
  try {
    setup = await agentModule.setupAgentRun({
      ...(options.root !== undefined ? { root: rootOf(options) } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      resume: id,
      resumeFor: "compact",
      preflight: true,
      signal,
    });
  } catch (err) {
    throw new CliError(describeError(err), ExitCode.failure);
  }
  const { engine, agent, model } = setup;
  try {
    for (const message of setup.notices) await writeStderr(`lathe: ${shownLines(message)}\n`);
    const event = await agentModule.compactSession({ engine, agent, model, sessionId: id, signal });
    await writeStdout(`Compacted session ${id}: ${agentModule.compactionLine(event)}.\n`);
  } catch (err) {
    if (signal.aborted) throw new CliError(`stopped: session ${id} was left as it was.`, ExitCode.failure);
    throw new CliError(`could not compact session ${id}: ${describeError(err)}`, ExitCode.failure);
  } finally {
    await closeEngine(engine);
    await agentModule.releaseInProcessModels();
  }
}
