import type { Command } from "commander";
import type { PluginCheckReport } from "../../engine/index.ts";
import { ExitCode, type ExitStatus } from "../exit-codes.ts";
import { writeStdout } from "../output.ts";
import { shownLines } from "../shown-path.ts";

/** The report as a person reads it: every problem with its fix, then the notes. */
function formatPluginCheck(report: PluginCheckReport): string {
  const lines: string[] = [];
  const tool = report.tool ? `${report.tool.name} ${report.tool.version}` : "the plugin";
  if (report.ok) lines.push(`ok: ${report.dir}: ${tool} loads and starts`);
  else {
    const count = report.problems.length;
    lines.push(`${report.dir}: ${count} problem${count === 1 ? "" : "s"}`);
    for (const p of report.problems) lines.push(`✗ ${p.file}: ${p.where} ${p.problem}`, `    fix: ${p.fix}`);
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  // What the module logged or threw while starting is the plugin's text (a folder being reviewed
  // before it is trusted): its escape sequences are shown, never sent to the terminal.
  return `${shownLines(lines.join("\n"))}\n`;
}

/** `lathe plugin check <folder> [--json]`: validate a plugin folder as the loader would, and more. */
export function registerPluginCommand(program: Command, result: ExitStatus): void {
  const plugin = program.command("plugin").description("Work on a plugin: check a plugin folder.");
  plugin
    .command("check")
    .description(
      "Validate a plugin folder as Lathe loads it (tool.yaml, TOOL.md, the entry module, schemas, requires, trust pin), start its isolate, and print every problem with its fix.",
    )
    .argument("<folder>", "the plugin's folder (holding tool.yaml, TOOL.md and index.js)")
    .option(
      "--json",
      "print {dir, ok, layer?, tool?: {name, version}, problems: [{file, where, problem, fix}], notes}",
    )
    .addHelpText(
      "after",
      `
Exit codes: 0 no problems, 1 problems (or the folder is missing), 2 usage error.

Examples:
  lathe plugin check ~/.lathe/tools/word_count
  lathe plugin check .lathe/tools/greet --json`,
    )
    .action(async (folder: string, options: { json?: boolean }) => {
      const { checkPluginFolder, resolveLatheHome } = await import("../../engine/index.ts");
      const report = await checkPluginFolder(folder, { latheHome: resolveLatheHome() });
      await writeStdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatPluginCheck(report));
      result.exitCode = report.ok ? ExitCode.ok : ExitCode.failure;
    });
}
