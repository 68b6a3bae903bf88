import type { Engine } from "../engine/index.ts";

interface ExtensionsWatchOptions {
  /** The engine to watch now (the host's current one). */
  engine(): Engine;
  /** Whether no UI call is running, so the registry may change (the app's "between turns"). */
  idle(): boolean;
  /** Told when what the panels show changed; it reads and sends the new status. */
  onChange(engine: Engine): Promise<void>;
  /** How often to look (default 500 ms). */
  intervalMs?: number;
}

/** What the panels show, cheaply: states, counts, errors and the bound tools. */
function fingerprint(engine: Engine): string {
  const extensions = engine.extensions;
  return JSON.stringify({
    mcp: extensions?.mcp.status(),
    plugins: extensions?.plugins
      .status()
      .map((p) => [p.layer, p.name, p.state, p.reason, p.hash, p.version, p.disabledByUser]),
    tools: engine.registry.all().map((r) => [r.tool.id, r.origin, r.shadows]),
    disabled: engine.registry.disabledTools(),
  });
}

/**
 * Keeps the extensions panels live and the registry current for a host without agent turns:
 * while no call is running it applies what waits (MCP connects, reconnects and tool-list changes,
 * plugin folder edits) — the engine's `applyPendingChanges`, never in the middle of a call — and
 * when anything the panels show differs from last time, tells `onChange`. The engine's MCP and
 * plugin managers take no listener once created, so it looks at them on a short timer.
 */
export class ExtensionsWatch {
  private readonly options: ExtensionsWatchOptions;
  private timer: NodeJS.Timeout | undefined;
  private last: { engine: Engine; print: string } | undefined;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private forced = false;

  constructor(options: ExtensionsWatchOptions) {
    this.options = options;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.queued === 0) void this.check();
    }, this.options.intervalMs ?? 500);
    this.timer.unref();
  }

  /** Look now (after whatever look is running); with `force`, report even if nothing changed. */
  check(force = false): Promise<void> {
    if (force) this.forced = true;
    this.queued++;
    const run = this.queue.then(() => this.run()).finally(() => this.queued--);
    this.queue = run;
    return run;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  private async run(): Promise<void> {
    const force = this.forced;
    this.forced = false;
    const engine = this.options.engine();
    try {
      if (this.options.idle()) await engine.applyPendingChanges();
      const print = fingerprint(engine);
      if (!force && this.last?.engine === engine && this.last.print === print) return;
      this.last = { engine, print };
      await this.options.onChange(engine);
    } catch (error) {
      this.last = undefined;
      console.error("lathe: could not bring the extensions up to date:", error);
    }
  }
}
