import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { auditTable } from "../audit-table.ts";
import { limitParser, rootOf, rootOption } from "../cli-options.ts";
import { parseTimeBound, shownTime } from "../time-bound.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";
import { parsedOrText } from "../recorded-json.ts";
import { registerAuditPruneCommand } from "./audit-prune-command.ts";

interface AuditOptions {
  root?: string;
  all?: boolean;
  session?: string;
  tool?: string;
  outcome?: "output" | "error" | "denied";
  since?: number;
  until?: number;
  json?: boolean;
  limit: number;
}

function parseOutcome(value: string): AuditOptions["outcome"] {
  if (value === "output" || value === "error" || value === "denied") return value;
  throw new InvalidArgumentError("Use output (it ran), error (it failed) or denied (a stage refused it).");
}

/**
 * `lathe audit [--root DIR | --all] [--session ID] [--tool ID] [--outcome O] [--since T]
 * [--until T] [--json]`: the audit trail of tool invocations in one folder (or every folder's),
 * oldest first.
 */
export function registerAuditCommand(program: Command): void {
  const audit = program
    .command("audit")
    .description(
      "Show the audit trail of the folder (--root, default the current directory): every tool invocation with its decisions and outcome.",
    )
    .addOption(rootOption())
    .option("--all", "every folder's invocations, and those recorded before Lathe noted the folder")
    .option("--session <id>", "only this session's invocations")
    .option("--tool <id>", "only this tool's invocations")
    .option(
      "--outcome <outcome>",
      "only those that ran (output), failed (error) or were refused (denied)",
      parseOutcome,
    )
    .option(
      "--since <when>",
      "only those that started at or after this: 2025-06-01, 2025-06-01T10:02 (UTC unless it ends with Z or +02:00), or a time ago: 10m, 2h, 3d",
      (value: string) => parseTimeBound(value, Date.now()),
    )
    .option(
      "--until <when>",
      "only those that started before this (the same forms as --since)",
      (value: string) => parseTimeBound(value, Date.now()),
    )
    .option("--json", "one JSON object per line (JSONL)")
    .option("--limit <n>", "the newest N invocations", limitParser(100_000), 100)
    .addHelpText(
      "after",
      `
The filters combine. Times are as the table prints them, in UTC:
  lathe audit --since 2h                             the last two hours
  lathe audit --since 2025-06-01 --until 2025-06-02  that day (UTC)
  lathe audit --since "2025-06-01 10:00+02:00" --outcome denied --tool bash

The trail keeps every call until you prune it: lathe audit prune --older-than 30d`,
    )
    .action(async (options: AuditOptions, command: Command) => {
      if (options.all && options.root !== undefined) {
        command.error(
          "error: --all lists every folder's invocations, so --root has no effect with it. Drop --root to see every folder's, or --all to see that folder's.",
          { exitCode: 2, code: "lathe.audit.conflict" },
        );
      }
      if (options.since !== undefined && options.until !== undefined && options.since >= options.until) {
        command.error(
          `error: --since (${shownTime(options.since)}) is not before --until (${shownTime(options.until)}), so no call could match. Swap them, or widen the window.`,
          { exitCode: 2, code: "lathe.audit.window" },
        );
      }
      // The trail is read from the store: no plugin is loaded and no MCP server started for it.
      // The folder is the engine's: the real path, as the calls recorded it.
      const { root, rows } = await withEngine(
        rootOf(options),
        async (engine) => ({
          root: engine.root,
          rows: engine.audit().query({
            ...(options.all ? {} : { root: engine.root }),
            ...(options.session ? { sessionId: options.session } : {}),
            ...(options.tool ? { toolId: options.tool } : {}),
            ...(options.outcome ? { outcome: options.outcome } : {}),
            ...(options.since !== undefined ? { since: options.since } : {}),
            ...(options.until !== undefined ? { until: options.until } : {}),
            limit: options.limit,
          }),
        }),
        { extensions: false },
      );
      if (options.json) {
        const lines = rows.map((r) =>
          JSON.stringify({
            call_id: r.callId,
            session_id: r.sessionId,
            root: r.root,
            tool: r.toolId,
            origin: r.originLayer
              ? { layer: r.originLayer, kind: r.originKind, name: r.originName ?? undefined }
              : null,
            descriptor_hash: r.descriptorHash,
            args: parsedOrText(r.argsJson),
            decisions: parsedOrText(r.decisionsJson),
            outcome: r.outcome,
            envelope_head: r.envelopeHead,
            duration_ms: r.durationMs,
            started_at: new Date(r.startedAt).toISOString(),
          }),
        );
        await writeStdout(lines.length > 0 ? `${lines.join("\n")}\n` : "");
        return;
      }
      if (rows.length === 0) {
        const filters = [
          options.session ? `session ${options.session}` : "",
          options.tool ? `tool ${options.tool}` : "",
          options.outcome ? `outcome ${options.outcome}` : "",
          options.since !== undefined ? `since ${shownTime(options.since)}` : "",
          options.until !== undefined ? `until ${shownTime(options.until)}` : "",
        ].filter(Boolean);
        const what = filters.length > 0 ? `match ${filters.join(", ")}` : "recorded yet";
        await writeStdout(
          options.all
            ? `No tool invocations ${what}.\n`
            : `No tool invocations in ${root} ${what}. \`lathe audit --all\` shows every folder's.\n`,
        );
        return;
      }
      await writeStdout(auditTable(rows, { folders: options.all === true }));
    });
  registerAuditPruneCommand(audit);
}
