import type { ServerConfinement } from "./mcp-confinement.ts";
import { stopParked, type ParkedServer } from "./mcp-connection.ts";

/** A stdio MCP server kept running after its engine closed. */
export interface KeptServer {
  parked: ParkedServer;
  /** Its OS sandbox (and the temp folder it uses): whoever takes the server takes this too. */
  confinement: ServerConfinement | undefined;
}

/** A kept server as `lathe daemon status` names it: its name and the folder it was started for. */
export interface KeptServerName {
  name: string;
  root: string;
}

interface Entry extends KeptServer {
  /** One server of one folder's settings (root, data folder, name). */
  slot: string;
  name: string;
  /** The folder whose command started it. */
  root: string;
  /** The spawner environment it was started under (a spawner is retired only once idle). */
  environment: string;
  timer: NodeJS.Timeout;
}

export interface McpServerPoolOptions {
  /** A kept server not taken again within this long is stopped. */
  idleMs: number;
  /** At most this many are kept; the longest kept goes first. */
  max: number;
  /** The environment the process spawner would start with now (spawnerEnvironment). */
  environment: () => string;
  /** Told when a kept server is stopped or could not be (for a log). */
  log?: (line: string) => void;
}

/**
 * Stdio MCP servers kept running between the engines of one long-lived process (the CLI's
 * daemon), so the next command in the same folder uses a running server instead of waiting for
 * it to start. A server is handed only to an engine that would start exactly the same process in
 * exactly the same sandbox (see OpenedTransport.identity): a change to its settings, the
 * workspace's sandbox settings, the caller's environment, the login shell's PATH, or the files it
 * starts from (its script edited, its program replaced) starts a fresh one. Only idle servers are
 * kept (ParkedServer), never one that is in the middle of a call.
 */
export class McpServerPool {
  private readonly options: McpServerPoolOptions;
  private readonly entries: Entry[] = [];

  constructor(options: McpServerPoolOptions) {
    this.options = options;
  }

  /** The servers kept now and the folder each was started for, longest kept first. */
  keptFor(): KeptServerName[] {
    return this.entries.map(({ name, root }) => ({ name, root }));
  }

  /**
   * The kept server that runs exactly what `identity` names, taken out of the pool (the caller
   * owns it now). Kept servers of the same `slot` that differ are stopped: their settings or
   * environment have changed, or a file or folder their sandbox mounted was replaced (see
   * mountsUnchanged), so nothing will take them.
   */
  take(identity: string, slot: string): KeptServer | undefined {
    let found: Entry | undefined;
    for (const entry of [...this.entries]) {
      if (entry.slot !== slot) continue;
      if (entry.parked.identity !== identity)
        void this.stop(entry, "its settings, environment or start files changed");
      else if (entry.parked.opened.mountsUnchanged?.() === false)
        void this.stop(entry, "a file or folder its sandbox holds was replaced since it started");
      else if (entry.parked.gone) void this.stop(entry, "it has ended");
      else if (found === undefined) found = entry;
      else void this.stop(entry, "another of the same settings is used");
    }
    if (!found) return undefined;
    this.remove(found);
    found.parked.onGone = undefined;
    return { parked: found.parked, confinement: found.confinement };
  }

  /**
   * Stop the kept servers of a folder's settings (slots starting with `folder`) that are not
   * among `slots`: a server removed from the settings, turned off, or no longer allowed to start
   * (its project no longer trusted, its pin changed) must not go on running for nobody.
   */
  retireOthers(folder: string, slots: ReadonlySet<string>): void {
    for (const entry of [...this.entries])
      if (entry.slot.startsWith(folder) && !slots.has(entry.slot))
        void this.stop(entry, "it is no longer to start");
  }

  /** Stop the kept servers of one slot (one that may not start now). */
  retire(slot: string): void {
    for (const entry of [...this.entries])
      if (entry.slot === slot) void this.stop(entry, "it may not start now");
  }

  /** Keep a server for `idleMs`; it is stopped sooner if it ends, or if more than `max` are kept. */
  put(at: { slot: string } & KeptServerName, server: KeptServer): void {
    const entry: Entry = {
      ...server,
      ...at,
      environment: this.options.environment(),
      timer: setTimeout(() => void this.stop(entry, "not used again in time"), this.options.idleMs),
    };
    entry.timer.unref();
    server.parked.onGone = () => {
      this.remove(entry);
      void entry.confinement
        ?.dispose()
        .catch((err: unknown) => this.say(`removing its temp folder failed: ${(err as Error).message}`));
    };
    this.entries.push(entry);
    while (this.entries.length > this.options.max) void this.stop(this.entries[0] as Entry, "too many kept");
  }

  /**
   * Stop the servers started under another environment than this process has now. A kept
   * server keeps its process spawner, and a spawner serves a new environment only once idle: a
   * command run with another environment must not get its processes from the old one.
   */
  async retireOtherEnvironments(): Promise<void> {
    const now = this.options.environment();
    await Promise.all(
      this.entries
        .filter((entry) => entry.environment !== now)
        .map((entry) => this.stop(entry, "the environment changed")),
    );
  }

  /** Stop every kept server (the process is about to end). */
  async close(): Promise<void> {
    await Promise.all([...this.entries].map((entry) => this.stop(entry, "Lathe is stopping")));
  }

  private remove(entry: Entry): void {
    clearTimeout(entry.timer);
    const at = this.entries.indexOf(entry);
    if (at >= 0) this.entries.splice(at, 1);
  }

  private async stop(entry: Entry, why: string): Promise<void> {
    if (!this.entries.includes(entry)) return;
    this.remove(entry);
    this.say(`stopping kept MCP server ${entry.name}: ${why}`);
    try {
      await stopParked(entry.parked);
    } catch (err) {
      this.say(`stopping it failed: ${(err as Error).message}`);
    }
    await entry.confinement
      ?.dispose()
      .catch((err: unknown) => this.say(`removing its temp folder failed: ${(err as Error).message}`));
  }

  private say(line: string): void {
    this.options.log?.(line);
  }
}

let processPool: McpServerPool | undefined;

/**
 * From now on, this process keeps idle stdio MCP servers running after their engine closes (the
 * CLI's daemon does; an app's engine lives as long as its window anyway), compared by the
 * process spawner's environment (loaded here, off the path of every command that starts none).
 */
export async function keepMcpServersRunning(
  options: Omit<McpServerPoolOptions, "environment">,
): Promise<McpServerPool> {
  const { spawnerEnvironment } = await import("../spawner/process-spawner.ts");
  processPool ??= new McpServerPool({ ...options, environment: spawnerEnvironment });
  return processPool;
}

/** This process's pool of kept MCP servers, if it keeps them. */
export function mcpServerPool(): McpServerPool | undefined {
  return processPool;
}
