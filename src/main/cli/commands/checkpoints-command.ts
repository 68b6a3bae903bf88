import { InvalidArgumentError, type Command } from "commander";
import type { Engine, RestoreOutcome } from "../../engine/index.ts";
import { NOT_REACHED } from "../../engine/light.ts";
import {
  blockedMessage,
  checkpointListJson,
  formatCheckpointList,
  formatLeftovers,
  formatPlan,
} from "../checkpoint-output.ts";
import { CliError } from "../cli-error.ts";
import { stopOnInterrupt } from "../interrupt.ts";
import { parseSessionId, rootOf, rootOption } from "../cli-options.ts";
import { withEngine } from "../open-engine.ts";
import { describeError, writeStdout } from "../output.ts";

interface CommonOptions {
  root?: string;
  session: string;
  json?: boolean;
}

interface ApplyOptions extends CommonOptions {
  force?: boolean;
  dryRun?: boolean;
}

function wholeNumber(min: number, what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || !Number.isSafeInteger(n)) {
      throw new InvalidArgumentError(`Use a whole number${min > 0 ? ` from ${min}` : ""} (${what}).`);
    }
    return n;
  };
}

/** Run against the store only: no plugins or MCP servers are started. Engine refusals exit 1 with their message. */
async function withStore<T>(options: CommonOptions, fn: (engine: Engine) => Promise<T>): Promise<T> {
  try {
    return await withEngine(rootOf(options), fn, { extensions: false });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err));
  }
}

/**
 * How long a stopped restore or rewind may take to wind down: it stops between two files, so
 * what it waits for is the file being written (up to 8 MB, synced to disk).
 */
const RESTORE_STOP_GRACE_MS = 10_000;

/**
 * Run a restore or rewind that Ctrl-C or SIGTERM stop between two files (never halfway through
 * one); should it not wind down in time, the last word says what state it leaves.
 */
async function stoppable<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const release = stopOnInterrupt(controller, {
    graceMs: RESTORE_STOP_GRACE_MS,
    lastWord: () =>
      `stopped before the ${what} wound down: some files may be put back and others not. See what is where with lathe checkpoints, then run the same command again to finish it, or restore the newest checkpoint it lists to undo it.`,
  });
  try {
    return await work(controller.signal);
  } finally {
    release();
  }
}

/** The last word of a restore or rewind that was stopped halfway. */
function stoppedMessage(outcome: RestoreOutcome, options: ApplyOptions, what: string): string {
  const unreached = outcome.failed.filter((f) => f.reason === NOT_REACHED).length;
  const undo =
    outcome.undoCheckpoint !== null
      ? `, or undo what it did with: lathe restore ${outcome.undoCheckpoint} --session ${options.session}`
      : "";
  const kept = what === "rewind" ? "; the conversation was not cut" : "";
  return `the ${what} was stopped (${outcome.stopped ?? "stopped"}) before ${unreached} path${unreached === 1 ? "" : "s"}, left as they were (listed above); no file was left half written${kept}. Run the same command again to finish it${undo}.`;
}

/** Print an applied or refused restore/rewind; throws (exit 1) when it was refused or a path failed. */
async function report(
  outcome: RestoreOutcome,
  options: ApplyOptions,
  refused: string,
  done: string,
  what: "restore" | "rewind",
): Promise<void> {
  if (options.json) await writeStdout(`${JSON.stringify(outcome, null, 2)}\n`);
  if (!outcome.applied) throw new CliError(blockedMessage(refused, outcome));
  if (!options.json)
    await writeStdout(`${done}\n${formatPlan(outcome.plan, outcome)}${formatLeftovers(outcome)}`);
  if (outcome.stopped !== undefined) throw new CliError(stoppedMessage(outcome, options, what));
  if (outcome.failed.length > 0) {
    throw new CliError(
      `${outcome.failed.length} path${outcome.failed.length === 1 ? "" : "s"} could not be restored (listed above); the others were.${what === "rewind" ? " The conversation was not cut: rewind again once they can be." : ""}${outcome.undoCheckpoint !== null ? ` Undo with: lathe restore ${outcome.undoCheckpoint} --session ${options.session}` : ""}`,
    );
  }
  if (!options.json && outcome.undoCheckpoint !== null) {
    await writeStdout(`Undo with: lathe restore ${outcome.undoCheckpoint} --session ${options.session}\n`);
  }
}

/** A dry run: print the plan; exit 1 when the real run would be refused. */
async function preview(
  plan: Parameters<typeof formatPlan>[0],
  options: ApplyOptions,
  heading: string,
): Promise<void> {
  const blocked = plan.paths.filter((p) => p.conflict !== undefined || p.unavailable !== undefined);
  if (options.json) await writeStdout(`${JSON.stringify(plan, null, 2)}\n`);
  else await writeStdout(`${heading}\n${formatPlan(plan)}`);
  if (blocked.length > 0 && !options.force) {
    const lost = blocked.filter((p) => p.unavailable !== undefined).length;
    const changed = blocked.length - lost;
    const does = [
      ...(changed > 0 ? [`overwrites the ${changed} changed since`] : []),
      ...(lost > 0
        ? [`leaves the ${lost} that cannot be restored as ${lost === 1 ? "it is" : "they are"}`]
        : []),
    ].join(" and ");
    throw new CliError(
      `${blocked.length} path${blocked.length === 1 ? " needs" : "s need"} a decision (marked above): run without --dry-run and with --force, which ${does}.`,
    );
  }
}

/**
 * `lathe checkpoints`, `lathe restore` and `lathe rewind`: list a session's checkpoints, put one
 * back, or take a session back to before a prompt (files and conversation).
 */
export function registerCheckpointCommands(program: Command): void {
  program
    .command("checkpoints")
    .description(
      "List a session's checkpoints: one per call that changed files (write, edit, bash), oldest first.",
    )
    .requiredOption(
      "--session <id>",
      "the session (as given to --session, or printed by lathe run)",
      parseSessionId,
    )
    .addOption(rootOption())
    .option("--json", "print a JSON array of {id, tool, paths, time, run_id, message, restored_by, …}")
    .action(async (options: CommonOptions) => {
      const { list, prompts } = await withStore(options, async (engine) => ({
        list: engine.checkpoints.list(options.session),
        prompts: engine.conversations().prompts(options.session),
      }));
      await writeStdout(
        options.json ? checkpointListJson(list) : formatCheckpointList(options.session, list, prompts),
      );
    });

  program
    .command("restore")
    .description(
      "Put the files of a checkpoint back as they were before its call. Refused (exit 1, nothing changed) when a file changed since, unless --force.",
    )
    .argument(
      "<checkpoint-id>",
      "the checkpoint's id (see lathe checkpoints)",
      wholeNumber(1, "a checkpoint id"),
    )
    .requiredOption("--session <id>", "the session the checkpoint belongs to", parseSessionId)
    .addOption(rootOption())
    .option("--force", "overwrite files changed since (their content is kept in a new checkpoint)")
    .option("--dry-run", "only show what would change, path by path")
    .option("--json", "print the plan (with --dry-run) or the outcome as JSON")
    .action(async (id: number, options: ApplyOptions) => {
      await withStore(options, async (engine) => {
        const checkpoint = engine.checkpoints.get(options.session, id);
        const what = `checkpoint ${id} (${checkpoint.tool})`;
        if (options.dryRun) {
          const plan = await engine.checkpoints.previewRestore(options.session, id);
          await preview(plan, options, `Restoring ${what} would:`);
          return;
        }
        const outcome = await stoppable("restore", (signal) =>
          engine.checkpoints.restore(options.session, id, { force: options.force === true, signal }),
        );
        await report(
          outcome,
          options,
          `${what} was not restored`,
          `Restored ${what} in session ${options.session}:`,
          "restore",
        );
      });
    });

  program
    .command("rewind")
    .description(
      "Take a session back to before a prompt: undo the file changes made since (newest first) and cut the conversation there, so lathe run --resume continues from that point.",
    )
    .requiredOption("--session <id>", "the session to rewind", parseSessionId)
    .requiredOption(
      "--before <message>",
      "the prompt's message number (lathe checkpoints lists them as 'prompt N')",
      wholeNumber(0, "a prompt's message number"),
    )
    .addOption(rootOption())
    .option("--force", "overwrite files changed since (their content is kept in a new checkpoint)")
    .option("--dry-run", "only show what would change: files, and the messages removed")
    .option("--json", "print the plan (with --dry-run) or the outcome as JSON")
    .action(async (options: ApplyOptions & { before: number }) => {
      await withStore(options, async (engine) => {
        const point = { message: options.before };
        if (options.dryRun) {
          const plan = await engine.checkpoints.previewRewind(options.session, point);
          await preview(
            plan,
            options,
            `Rewinding session ${options.session} to before prompt ${plan.beforeMessage} would remove ${plan.messages} message${plan.messages === 1 ? "" : "s"} (${plan.runs.length} run${plan.runs.length === 1 ? "" : "s"}) and:`,
          );
          return;
        }
        const outcome = await stoppable("rewind", (signal) =>
          engine.checkpoints.rewind(options.session, point, { force: options.force === true, signal }),
        );
        await report(
          outcome,
          options,
          `session ${options.session} was not rewound`,
          outcome.conversationCut
            ? `Rewound session ${options.session} to before prompt ${outcome.plan.beforeMessage}: ${outcome.plan.messages} message${outcome.plan.messages === 1 ? "" : "s"} removed. Continue with: lathe run "…" --resume ${options.session}`
            : `Session ${options.session} was not rewound to before prompt ${outcome.plan.beforeMessage}: its conversation is kept whole, and only these files were put back:`,
          "rewind",
        );
      });
    });
}
