import type { Command } from "commander";
import { rootOf, rootOption } from "../cli-options.ts";
import { withEngine } from "../open-engine.ts";
import { writeStdout } from "../output.ts";
import {
  formatDeferredTools,
  formatDisabledTools,
  formatShadowing,
  formatToolsTable,
  formatToolWarnings,
  listTools,
} from "../tools-table.ts";

/** `lathe tools [--root DIR] [--json]`: the registry, as a table or as JSON. */
export function registerToolsCommand(program: Command): void {
  program
    .command("tools")
    .description("List the tools available in a folder and where each comes from.")
    .addOption(rootOption())
    .option(
      "--json",
      "print a JSON array of {id, enabled: true, description, parameters, requires, readOnly, gated, kind, origin, deferred, deferredBy?, shadows}, then the disabled ones as {id, enabled: false, origin, reason, fix?}",
    )
    .action(async (options: { root?: string; json?: boolean }) => {
      const tools = await withEngine(
        rootOf(options),
        async (engine) => listTools(engine.listTools(), engine.registry.disabledTools()),
        { listsDisabled: true },
      );
      // The engine is loaded by now: the context its deferral assumed without a model.
      const { DEFAULT_CONTEXT_TOKENS } = await import("../../engine/index.ts");
      const bound = tools.filter((t) => t.enabled);
      const width = process.stdout.isTTY ? process.stdout.columns : undefined;
      await writeStdout(
        options.json
          ? `${JSON.stringify(tools, null, 2)}\n`
          : `${formatToolsTable(bound, width)}${formatDeferredTools(bound, DEFAULT_CONTEXT_TOKENS)}${formatToolWarnings(bound)}${formatShadowing(bound)}${formatDisabledTools(tools)}`,
      );
    });
}
