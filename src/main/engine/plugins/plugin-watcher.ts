import { statSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import type { ToolsDir } from "./plugin-discovery.ts";

/**
 * Watches tools directories (recursively) and calls `onChange` once per burst of changes,
 * after `debounceMs` of quiet. A directory that does not exist yet is noticed when it appears
 * (its parent is watched meanwhile). It never reloads anything itself.
 */
export class PluginWatcher {
  private readonly dirs: readonly ToolsDir[];
  private readonly onChange: () => void;
  private readonly debounceMs: number;
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(dirs: readonly ToolsDir[], onChange: () => void, debounceMs: number) {
    this.dirs = dirs;
    this.onChange = onChange;
    this.debounceMs = debounceMs;
  }

  start(): void {
    if (this.closed) return;
    for (const w of this.watchers) w.close();
    this.watchers = [];
    for (const { dir } of this.dirs) this.arm(dir);
  }

  private arm(dir: string): void {
    const add = (target: string, recursive: boolean, filter?: (name: string | null) => boolean): boolean => {
      try {
        const w = watch(target, { recursive, persistent: false }, (_event, name) => {
          if (!filter || filter(name)) this.changed();
        });
        w.on("error", () => this.changed());
        this.watchers.push(w);
        return true;
      } catch {
        return false;
      }
    };
    // A recursive watch of a missing directory neither throws nor reports an error: look first.
    const exists = statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
    if (exists && add(dir, true)) return;
    // Not there yet: watch the parent for it to appear (the parent may be missing too; then
    // the folder is picked up at the next load).
    const base = path.basename(dir);
    add(path.dirname(dir), false, (name) => name === null || name === base);
  }

  private changed(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Re-arm: a directory may have appeared or disappeared.
      this.start();
      this.onChange();
    }, this.debounceMs);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}
