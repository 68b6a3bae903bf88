import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { limitParser, rootOf, rootOption } from "../cli-options.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";

interface AuditOptions {
  root?: string;
  session?: string;
  tool?: string;
  outcome?: "output" | "error" | "denied";
  json?: boolean;
  limit: number;
}

function parseOutcome(value: string): AuditOptions["outcome"] {
  if (value === "output" || value === "error" || value === "denied") return value;
  throw new InvalidArgumentError("Use output (it ran), error (it failed) or denied (a stage refused it).");
}

/** `lathe audit [--session ID] [--tool ID] [--outcome O] [--json]`: the audit trail of tool invocations, oldest first. */
export function registerAuditCommand(program: Command): void {
  program
    .command("audit")
    .description("Show the audit trail: every tool invocation with its decisions and outcome.")
    .addOption(rootOption())
    .option("--session <id>", "only this session's invocations")
    .option("--tool <id>", "only this tool's invocations")
    .option(
      "--outcome <outcome>",
      "only those that ran (output), failed (error) or were refused (denied)",
      parseOutcome,
    )
    .option("--json", "one JSON object per line (JSONL)")
    .option("--limit <n>", "the newest N invocations", limitParser(100_000), 100)
    .action(async (options: AuditOptions) => {
      // The trail is read from the store: no plugin is loaded and no MCP server started for it.
      const rows = await withEngine(
        rootOf(options),
        async (engine) =>
          engine.audit().query({
            ...(options.session ? { sessionId: options.session } : {}),
            ...(options.tool ? { toolId: options.tool } : {}),
            ...(options.outcome ? { outcome: options.outcome } : {}),
            limit: options.limit,
          }),
        { extensions: false },
      );
      if (options.json) {
        const lines = rows.map((r) =>
          JSON.stringify({
            call_id: r.callId,
            session_id: r.sessionId,
            tool: r.toolId,
            origin: r.originLayer
              ? { layer: r.originLayer, kind: r.originKind, name: r.originName ?? undefined }
              : null,
            descriptor_hash: r.descriptorHash,
            args: JSON.parse(r.argsJson) as unknown,
            decisions: JSON.parse(r.decisionsJson) as unknown,
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
        ].filter(Boolean);
        await writeStdout(
          filters.length > 0
            ? `No tool invocations match ${filters.join(", ")}.\n`
            : "No tool invocations recorded yet.\n",
        );
        return;
      }
      const out = rows.map((r) => {
        const decisions = JSON.parse(r.decisionsJson) as Array<{
          stage: string;
          outcome: string;
          reason: string;
        }>;
        const refusal = decisions.find((d) => d.outcome === "deny");
        const when = new Date(r.startedAt).toISOString().replace("T", " ").slice(0, 19);
        const head = `${when}  ${r.sessionId}  ${r.toolId.padEnd(10)} ${r.outcome.padEnd(6)} ${String(r.durationMs).padStart(5)} ms  ${r.argsJson.slice(0, 80)}`;
        return refusal ? `${head}\n    denied at ${refusal.stage}: ${refusal.reason}` : head;
      });
      await writeStdout(`${out.join("\n")}\n`);
    });
}
