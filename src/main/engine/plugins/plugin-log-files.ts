import path from "node:path";
import { RotatingLogFile } from "../logs/rotating-log-file.ts";
import { terminalSafeLines } from "../tools/one-line-path.ts";
import type { PluginLogSource } from "./isolate-host.ts";
import type { PluginLayer } from "./plugin-discovery.ts";

/** One line of a plugin's log: what it logged (runtime.log, console), or Lathe's note about it. */
export interface PluginLogEntry {
  /** The plugin folder name. */
  plugin: string;
  layer: PluginLayer;
  toolId?: string;
  /** `plugin`: runtime.log or console; `lathe`: a restart and its reason, a failed call, a failed start. */
  source: PluginLogSource;
  line: string;
  at: number;
}

/** Each plugin's log file grows to this size before it is rotated… */
const PLUGIN_LOG_MAX_BYTES = 1024 * 1024;
/** …and this many older files are kept (`<name>.1.log` newest). */
const PLUGIN_LOG_KEEP = 3;

/** The folder of the plugins' log files. */
function pluginLogDir(latheHome: string): string {
  return path.join(latheHome, "logs", "plugins");
}

/** Where a plugin folder's log goes: `$LATHE_HOME/logs/plugins/<folder name>.log`. */
export function pluginLogFile(latheHome: string, plugin: string): string {
  return path.join(pluginLogDir(latheHome), `${plugin}.log`);
}

/**
 * A log entry as one line of text (continuation lines indented):
 * `2025-06-01T10:00:00.000Z [global] counted 3 words`, or `… [global] lathe: isolate stopped: …`.
 * Control characters but newline and tab are escaped: the plugin wrote the text, and a person
 * reads the file with `tail -f`, where an escape sequence would reach their terminal.
 */
export function formatPluginLogLine(entry: PluginLogEntry): string {
  const text = terminalSafeLines(entry.line).replace(/\n/g, "\n    ");
  return `${new Date(entry.at).toISOString()} [${entry.layer}] ${entry.source === "lathe" ? "lathe: " : ""}${text}`;
}

interface PluginLogFilesOptions {
  /** Told when a plugin's file cannot be written (once per distinct failure). */
  onError(plugin: string, message: string): void;
  maxBytes?: number;
  keep?: number;
}

/**
 * Appends plugins' log lines to their rotated files. Lines are gathered and written once per turn
 * of the event loop, one synchronous append per plugin, so a chatty plugin costs one write a
 * tick, not one per line.
 */
export class PluginLogFiles {
  private readonly dir: string;
  private readonly options: PluginLogFilesOptions;
  private pending = new Map<string, string[]>();
  private scheduled: NodeJS.Immediate | undefined;
  private readonly failures = new Map<string, string>();

  constructor(latheHome: string, options: PluginLogFilesOptions) {
    this.dir = pluginLogDir(latheHome);
    this.options = options;
  }

  write(entry: PluginLogEntry): void {
    let lines = this.pending.get(entry.plugin);
    if (!lines) {
      lines = [];
      this.pending.set(entry.plugin, lines);
    }
    lines.push(formatPluginLogLine(entry));
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Write every line gathered so far now. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const pending = this.pending;
    this.pending = new Map();
    for (const [plugin, lines] of pending) {
      const file = path.join(this.dir, `${plugin}.log`);
      let log: RotatingLogFile | undefined;
      try {
        log = new RotatingLogFile({
          file,
          maxBytes: this.options.maxBytes ?? PLUGIN_LOG_MAX_BYTES,
          keep: this.options.keep ?? PLUGIN_LOG_KEEP,
        });
        log.write(`${lines.join("\n")}\n`);
        this.failures.delete(plugin);
      } catch (err) {
        const message = `cannot write the log file ${file}: ${(err as Error).message}`;
        if (this.failures.get(plugin) !== message) {
          this.failures.set(plugin, message);
          this.options.onError(plugin, message);
        }
      } finally {
        log?.close();
      }
    }
  }
}
