import type { Command } from "commander";
import { byteSize, counted } from "../../engine/light.ts";
import { rootOf, rootOption } from "../cli-options.ts";
import { withEngine } from "../open-engine.ts";
import { writeIfOpen } from "../closed-output.ts";
import { writeStdout } from "../output.ts";
import { AGE_FORMS, parseAge, shownTime } from "../time-bound.ts";

/** A database this large or larger takes long enough to rewrite that a line says it is being done. */
const SAID_REWRITE_BYTES = 32 * 1024 * 1024;

interface PruneOptions {
  root?: string;
  all?: boolean;
  olderThan: number;
}

/**
 * `lathe audit prune --older-than <age> [--root DIR | --all]`: delete the audit rows of calls
 * older than the age (the folder's, or every folder's), then give their space back to the disk.
 * Nothing prunes the trail otherwise: it grows by every call (500,000 calls take some 430 MB).
 */
export function registerAuditPruneCommand(audit: Command): void {
  audit
    .command("prune")
    .description(
      "Delete the audit rows of tool invocations older than --older-than in the folder (--root, default the current directory; --all: every folder's), then give their space back to the disk.",
    )
    .requiredOption(
      "--older-than <age>",
      `delete the invocations that started longer ago than this: 30d, 12h, 90m, 2w`,
      (value: string) => parseAge(value),
    )
    .addOption(rootOption())
    .option("--all", "every folder's invocations, and those recorded before Lathe noted the folder")
    .addHelpText(
      "after",
      `
${AGE_FORMS}
Lathe never prunes on its own. Reclaiming the space rewrites the database (SQLite's VACUUM):
it needs free disk space about the database's size meanwhile, and waits for other Lathe
processes to finish what they are writing.

Examples:
  lathe audit prune --older-than 30d          this folder's calls of more than 30 days ago
  lathe audit prune --older-than 12h --all    every folder's calls of more than 12 hours ago`,
    )
    .action(async (options: PruneOptions, command: Command) => {
      // Commander gives `audit`'s own options to it wherever they stand, prune's --root and --all
      // among them (audit has the same): they are read from there, and audit's others refused.
      const audit = command.parent;
      const fromAudit = (name: string): boolean => audit?.getOptionValueSource(name) === "cli";
      const foreign = (audit?.options ?? [])
        .filter((o) => o.long !== undefined && fromAudit(o.attributeName()))
        .filter((o) => o.attributeName() !== "root" && o.attributeName() !== "all")
        .map((o) => o.long as string);
      if (foreign.length > 0) {
        command.error(
          `error: ${foreign.join(", ")} ${foreign.length === 1 ? "is" : "are"} not for prune, which takes --older-than, --root and --all. Drop ${foreign.length === 1 ? "it" : "them"}.`,
          { exitCode: 2, code: "lathe.audit.prune.option" },
        );
      }
      if (fromAudit("root")) options.root = audit?.getOptionValue("root") as string;
      if (fromAudit("all")) options.all = true;
      if (options.all && options.root !== undefined) {
        command.error(
          "error: --all prunes every folder's invocations, so --root has no effect with it. Drop --root to prune every folder's, or --all to prune that folder's.",
          { exitCode: 2, code: "lathe.audit.conflict" },
        );
      }
      const before = Date.now() - options.olderThan;
      const { root, pruned } = await withEngine(
        rootOf(options),
        async (engine) => ({
          root: engine.root,
          pruned: engine.pruneAudit({ before, ...(options.all ? {} : { root: engine.root }) }, (bytes) => {
            // Seconds of silence otherwise: VACUUM rewrites the whole file (430 MB took 5 s here).
            if (bytes >= SAID_REWRITE_BYTES)
              writeIfOpen(
                process.stderr,
                `lathe: giving the space back to the disk: rewriting the database (${byteSize(bytes)}), which takes a while…\n`,
              );
          }),
        }),
        { extensions: false },
      );
      const where = options.all ? "of every folder" : `in ${root}`;
      const rows = counted(pruned.removed, "audit row", { shown: pruned.removed.toLocaleString("en-US") });
      const size =
        pruned.bytesAfter < pruned.bytesBefore
          ? `The database shrank from ${byteSize(pruned.bytesBefore)} to ${byteSize(pruned.bytesAfter)} (${byteSize(pruned.bytesBefore - pruned.bytesAfter)} reclaimed).`
          : `The database takes ${byteSize(pruned.bytesAfter)}.`;
      await writeStdout(
        `${pruned.removed === 0 ? "Removed no audit rows" : `Removed ${rows}`}: the tool invocations ${where} that started before ${shownTime(before)}. ${size}\n`,
      );
    });
}
