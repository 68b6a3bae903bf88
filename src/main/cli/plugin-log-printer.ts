import type { Engine, PluginLogEntry } from "../engine/index.ts";
import { writeStderr } from "./output.ts";
import { shownLines } from "./shown-path.ts";

/** A plugin's log line as `--verbose` prints it: `[plugin word_count] read 3 files`. */
function formatPluginLog(entry: PluginLogEntry): string {
  const who =
    entry.toolId !== undefined && entry.toolId !== entry.plugin
      ? `${entry.plugin} (${entry.toolId})`
      : entry.plugin;
  // The plugin wrote the text: its escape sequences are shown, never sent to the terminal.
  const text = shownLines(entry.line).replace(/\n/g, "\n    ");
  return `[plugin ${who}] ${entry.source === "lathe" ? "lathe: " : ""}${text}\n`;
}

/** `--verbose`: every plugin log line and Lathe's notes about plugins go to stderr as they come. */
export function printPluginLogs(engine: Engine): void {
  engine.events.on("PluginLog", (entry) => void writeStderr(formatPluginLog(entry)));
}
