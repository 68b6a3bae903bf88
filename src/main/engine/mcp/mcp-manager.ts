import path from "node:path";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SourcedMcpServer } from "../config/policy-config.ts";
import type { TrustStore } from "../policy/trust-store.ts";
import type { EngineSandbox } from "../sandbox/engine-sandbox.ts";
import { watchRepos } from "../sandbox/planted-repos.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import { bindServerTools, mcpOrigin, unbindServer } from "./mcp-binding.ts";
import { commandLine, isStdio } from "./mcp-command-line.ts";
import { configDigest } from "./mcp-config-digest.ts";
import { serverConfinement, type ServerConfinement } from "./mcp-confinement.ts";
import { McpConnection, type Backoff, type ConnectionState, type ParkedServer } from "./mcp-connection.ts";
import { loginShellPath } from "./login-shell-path.ts";
import { compileOutputSchemaAhead } from "./mcp-output-schema.ts";
import type { McpEvent, McpServerState, McpServerStatus } from "./mcp-event.ts";
import { cutDescriptionNote } from "./mcp-description.ts";
import { pinScope, pinStatus, serverBlockReason, serverHash, serverPinKey } from "./mcp-pins.ts";
import { McpServerLog } from "./mcp-server-log.ts";
import { mcpServerPool, type KeptServer, type McpServerPool } from "./mcp-server-pool.ts";
import type { RefusedTool } from "./mcp-tool-listing.ts";

/** What a person is asked before a stdio MCP server starts without the OS sandbox. */
export interface UnsandboxedServerRequest {
  server: string;
  layer: "global" | "project";
  /** The command line it would start with, as a person is shown it (secret values masked). */
  commandLine: string;
  /**
   * What exactly would start, unmasked (see configDigest): remember an answer under this, never
   * under the shown line, which two starts differing only in a secret value share.
   */
  configDigest: string;
  /** Why the sandbox is not active. */
  reason: string;
}

/** Answers whether a stdio MCP server may start unconfined this time; true lets it start. */
export type UnsandboxedServerApprover = (request: UnsandboxedServerRequest) => Promise<boolean>;

export interface McpManagerOptions {
  registry: ToolRegistry;
  /** The servers from settings (`engine.policy.mcpServers`). */
  servers: readonly SourcedMcpServer[];
  trust: TrustStore;
  /** The workspace's real root: the scope of project pins and the default cwd of stdio servers. */
  root: string;
  latheHome: string;
  onEvent?: (event: McpEvent) => void;
  /** Limit for a server's handshake and tool listing (default 30 s). */
  connectTimeoutMs?: number;
  /** Reconnect delays after a server dies (default 0.5 s doubling to 30 s). */
  backoff?: Backoff;
  /** The PATH stdio servers start with (default: the login shell's, merged with this process's). */
  pathProvider?: () => Promise<string>;
  /**
   * The OS sandbox stdio servers run in: their working folder and the workspace writable, their
   * own files and the other protected paths read-only, network `sandbox.allowNetwork` plus the
   * server's own `allowNetwork`.
   */
  sandbox: EngineSandbox;
  /**
   * Asked before a stdio server starts while the OS sandbox is not active. Without one (headless)
   * such a server is not started, and says why and how to fix it.
   */
  approveUnsandboxed?: UnsandboxedServerApprover;
  /**
   * Where idle stdio servers are kept running at close, and taken from at start when one runs
   * exactly what would start (default: this process's, if it keeps them: keepMcpServersRunning).
   */
  pool?: McpServerPool;
}

interface Slot {
  server: SourcedMcpServer;
  scope: string;
  commandLine: string;
  log: McpServerLog;
  connection: McpConnection | undefined;
  /** Why the server is not started (its command line is not approved), if so. */
  blocked: string | undefined;
  /** The latest tool listing, not yet necessarily in the registry. */
  listing: Tool[] | undefined;
  /** The entries of that listing no call can use, with why. */
  refused: RefusedTool[];
  /** What a person should know about that listing that is no error (descriptions cut for the model). */
  notes: string[];
  /** Every note already written to the log, so a relisting does not repeat it. */
  logged: Set<string>;
  /** Whether the registry must be brought up to date with this server at the next apply. */
  dirty: boolean;
  /** The server's OS sandbox, once it has started confined (what its own starts run in). */
  confinement: ServerConfinement | undefined;
  /** A kept server taken from the pool, until it is used (or turns out to have ended). */
  taken: KeptServer | undefined;
  /**
   * While the server in use is one kept since an earlier engine: the sandbox it was started in
   * (its temp folder is that process's), given back to the pool with it or removed once it ends.
   */
  kept: ServerConfinement | undefined;
}

/** How a server starts: in the sandbox, unconfined (approved), or not at all. */
interface Confinement {
  sandbox?: ProcessSandbox;
  refused?: string;
}

export function mcpLogFile(latheHome: string, server: string): string {
  return path.join(latheHome, "logs", `mcp-${server}.log`);
}

/**
 * The MCP servers of one engine: starts them in the background, keeps their tools in the
 * registry (only ever changed in `applyPendingChanges`, which the host calls between turns),
 * reconnects dead servers, and refuses to start a server or bind a tool whose pinned descriptor
 * changed.
 */
export class McpManager {
  private readonly options: McpManagerOptions;
  private readonly slots: Slot[];
  private readonly started = new Set<string>();
  private running = false;
  private readonly readyPromise: Promise<void>;
  private launchedPromise: Promise<void> = Promise.resolve();
  private readonly pool: McpServerPool | undefined;
  private resolveReady: () => void = () => undefined;

  constructor(options: McpManagerOptions) {
    this.options = options;
    this.slots = options.servers.map((server) => ({
      server,
      scope: pinScope(server, options.root),
      commandLine: commandLine(server.config, options.root),
      log: new McpServerLog(mcpLogFile(options.latheHome, server.name)),
      connection: undefined,
      blocked: undefined,
      listing: undefined,
      refused: [],
      notes: [],
      logged: new Set(),
      dirty: false,
      confinement: undefined,
      taken: undefined,
      kept: undefined,
    }));
    this.pool = options.pool ?? mcpServerPool();
    this.readyPromise = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
  }

  /** Start every server in the background; returns at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.pool?.retireOthers(this.folderKey(), new Set(this.slots.map((slot) => this.slotKey(slot))));
    void Promise.all(this.slots.map((slot) => this.launch(slot))).then(() => this.resolveReady());
    // A slot without a connection yet is blocked, or waits on a person's approval: not waited for.
    this.launchedPromise = Promise.all(this.slots.map((slot) => slot.connection?.launched)).then(
      () => undefined,
    );
  }

  /**
   * Settles once every server started by `start()` has been asked for (its process requested) or
   * has failed to start; one refused, or waiting for a person's approval, is not waited for.
   */
  launched(): Promise<void> {
    return this.launchedPromise;
  }

  /** Settles once every server's first connect has succeeded or failed (after `start()`). */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Whether tool lists or server states wait for `applyPendingChanges()`. */
  hasPendingChanges(): boolean {
    return this.slots.some((slot) => slot.dirty);
  }

  /**
   * Bring the registry up to date: new tool lists (after a connect, reconnect or `list_changed`),
   * failed and disabled servers. Call it between turns, never during one.
   */
  applyPendingChanges(): void {
    const dirty = this.slots.filter((slot) => slot.dirty);
    if (dirty.length === 0) return;
    const { registry } = this.options;
    for (const slot of dirty) unbindServer(registry, slot.server);
    const firstSeen = new Map<string, Record<string, string>>();
    for (const slot of dirty) {
      slot.dirty = false;
      const origin = mcpOrigin(slot.server);
      if (slot.blocked) {
        registry.reportDisabled({ id: slot.server.name, origin, reason: slot.blocked });
        continue;
      }
      const connection = slot.connection;
      if (!connection || !slot.listing) {
        if (connection?.state === "failed") {
          registry.reportDisabled({ id: slot.server.name, origin, reason: connection.unavailableMessage() });
        }
        continue;
      }
      let pins: Record<string, string>;
      try {
        pins = this.options.trust.pins(slot.scope);
      } catch (err) {
        registry.reportDisabled({ id: slot.server.name, origin, reason: (err as Error).message });
        continue;
      }
      let seen: Record<string, string>;
      try {
        seen = bindServerTools({
          registry,
          server: slot.server,
          root: this.options.root,
          tools: slot.listing,
          refused: slot.refused,
          caller: connection,
          // What a confined server plants in the workspace's repositories during a call is taken
          // out after it (an unconfined one was approved to run as the person).
          watchRepos: () => (slot.confinement || slot.kept ? watchRepos(this.options.root) : undefined),
          pins,
        });
      } catch (err) {
        // What one server lists must not cost the other servers their tools, nor the host its start.
        unbindServer(registry, slot.server);
        registry.reportDisabled({
          id: slot.server.name,
          origin,
          reason: `MCP server "${slot.server.name}" is connected, but Lathe could not take in its tools: ${(err as Error).message}. The other servers are not affected; tell Lathe's authors.`,
        });
        continue;
      }
      if (Object.keys(seen).length > 0) firstSeen.set(slot.scope, { ...firstSeen.get(slot.scope), ...seen });
    }
    for (const [scope, pins] of firstSeen) {
      try {
        this.options.trust.pin(scope, pins);
      } catch (err) {
        // The tools stay bound (they passed every check); they are pinned on the next sight instead.
        for (const slot of dirty)
          if (slot.scope === scope) slot.log.note(`could not pin its tools: ${(err as Error).message}`);
      }
    }
  }

  /**
   * For a one-shot host that waited `waitedMs` and goes on without them: list each server still
   * on its first start as disabled, with why and where its log is, so it is never just missing.
   * The entry is replaced when the server connects or fails (the next `applyPendingChanges`).
   */
  reportStillStarting(waitedMs: number): void {
    for (const slot of this.slots) {
      const connection = slot.connection;
      if (slot.blocked || connection?.state !== "starting") continue;
      const output = slot.log.lastOutput();
      this.options.registry.reportDisabled({
        id: slot.server.name,
        origin: mcpOrigin(slot.server),
        reason:
          `MCP server "${slot.server.name}" had not finished starting after ${Math.round(waitedMs / 1000)} s, so its tools ` +
          `are not available to this command${output ? ` (its last output: ${output})` : ""}. Its log: ${slot.log.file}.`,
        fix: `check that the server answers MCP on its standard output (its log says what it did), or fix it in ${slot.server.source}`,
      });
    }
  }

  status(): McpServerStatus[] {
    return this.slots.map((slot) => {
      const state = this.stateOf(slot);
      const connection = slot.connection;
      const lastError = state === "connected" ? undefined : (slot.blocked ?? connection?.lastError);
      const pid = connection?.pid;
      return {
        name: slot.server.name,
        layer: slot.server.layer,
        state,
        commandLine: slot.commandLine,
        toolCount: slot.listing?.length ?? 0,
        ...(lastError !== undefined ? { lastError } : {}),
        ...(slot.notes.length > 0 ? { notes: [...slot.notes] } : {}),
        logFile: slot.log.file,
        ...(pid !== undefined ? { pid } : {}),
        source: slot.server.source,
      };
    });
  }

  /** Stop a server and start it again (its pin is checked again, so a re-approval takes effect). */
  async restart(name: string): Promise<void> {
    const slot = this.slot(name);
    const previous = slot.connection;
    slot.connection = undefined;
    await previous?.close();
    this.running = true;
    await this.launch(slot);
  }

  /** The last `lines` lines of a server's log (its stderr and Lathe's notes). */
  logTail(name: string, lines: number): string[] {
    return this.slot(name).log.tail(lines);
  }

  /**
   * Stop every server and take their tools out of the registry (call it between turns). With a
   * pool, an idle stdio server is kept running there instead, with its sandbox, for the next
   * engine that would start exactly it.
   */
  async close(): Promise<void> {
    const pool = this.pool;
    await Promise.all(
      this.slots.map((slot) => {
        const parked = pool ? slot.connection?.park() : undefined;
        if (!pool || !parked) return slot.connection?.close();
        // The process's own sandbox goes with it: the one it was kept with, else this slot's.
        pool.put(
          { slot: this.slotKey(slot), name: slot.server.name, root: this.options.root },
          { parked, confinement: slot.kept ?? slot.confinement },
        );
        if (slot.kept) slot.kept = undefined;
        else slot.confinement = undefined;
        return undefined;
      }),
    );
    for (const slot of this.slots) {
      unbindServer(this.options.registry, slot.server);
      slot.dirty = false;
      await slot.log.flush();
      await this.dropTaken(slot);
      await this.dropKept(slot);
      await slot.confinement?.dispose();
      slot.confinement = undefined;
    }
    this.resolveReady();
  }

  /** This folder's settings (its root and data folder), as the pool tells kept servers apart. */
  private folderKey(): string {
    return `${this.options.root}\0${this.options.latheHome}\0`;
  }

  /** One server of this folder's settings, as the pool tells kept servers apart. */
  private slotKey(slot: Slot): string {
    return `${this.folderKey()}${slot.server.layer}\0${slot.server.name}`;
  }

  /** A kept server taken but not used (it had ended): its sandbox's temp folder goes. */
  private async dropTaken(slot: Slot): Promise<void> {
    const taken = slot.taken;
    slot.taken = undefined;
    await taken?.confinement?.dispose();
  }

  /** The kept server this slot used has ended (or is stopped): its sandbox's temp folder goes. */
  private async dropKept(slot: Slot): Promise<void> {
    const kept = slot.kept;
    slot.kept = undefined;
    await kept?.dispose();
  }

  private slot(name: string): Slot {
    const slot = this.slots.find((s) => s.server.name === name);
    if (!slot) {
      const known = this.slots.map((s) => s.server.name);
      throw new Error(
        `There is no MCP server "${name}". Configured servers: ${known.length > 0 ? known.join(", ") : "none"}.`,
      );
    }
    return slot;
  }

  private stateOf(slot: Slot): McpServerState {
    if (slot.blocked) return "disabled";
    return mapState(slot.connection?.state);
  }

  private emit(event: McpEvent): void {
    this.options.onEvent?.(event);
  }

  /**
   * The OS sandbox a stdio server runs in, or why it may not start: when the sandbox is not
   * active, only a person's approval lets it start unconfined.
   */
  private confinement(slot: Slot): Confinement | Promise<Confinement> {
    const { server } = slot;
    const config = server.config;
    if (!isStdio(config)) return {};
    const engineSandbox = this.options.sandbox;
    const status = engineSandbox.status;
    if (status.active) {
      slot.confinement ??= serverConfinement(engineSandbox, server.name, config, this.options.root);
      return { sandbox: slot.confinement.sandbox };
    }
    const unconfined = `the OS sandbox is not active (${status.reason})`;
    const approve = this.options.approveUnsandboxed;
    if (!approve) {
      return {
        refused: `MCP server "${server.name}" was not started: ${unconfined}, and a stdio server runs unconfined only with a person's approval, which this host cannot ask (headless). To fix it: ${status.fix}.`,
      };
    }
    const request = {
      server: server.name,
      layer: server.layer,
      commandLine: slot.commandLine,
      configDigest: configDigest(config, this.options.root),
      reason: status.reason ?? "unknown",
    };
    return approve(request)
      .catch(() => false)
      .then((approved) =>
        approved
          ? {}
          : {
              refused: `MCP server "${server.name}" was not started: ${unconfined}, and running it unconfined was not approved.`,
            },
      );
  }

  /**
   * Check the server's pin and its confinement, then connect; resolves when the first connect
   * settles. Synchronous up to the connect unless a person must be asked, so a start shows at once.
   */
  private launch(slot: Slot): Promise<void> {
    slot.blocked = this.blockReason(slot);
    if (slot.blocked) return this.connect(slot, {});
    const confinement = this.confinement(slot);
    return confinement instanceof Promise
      ? confinement.then((c) => this.connect(slot, c))
      : this.connect(slot, confinement);
  }

  private connect(slot: Slot, confinement: Confinement): Promise<void> {
    const { server } = slot;
    slot.blocked ??= confinement.refused;
    const sandbox = confinement.sandbox;
    if (slot.blocked) {
      // A kept server of it must not go on running for nobody.
      this.pool?.retire(this.slotKey(slot));
      slot.listing = undefined;
      slot.dirty = true;
      slot.log.note(slot.blocked);
      this.emit({ type: "state", server: server.name, state: "disabled", error: slot.blocked });
      this.emit({ type: "pending", server: server.name });
      return Promise.resolve();
    }
    // A stdio server starts through the process spawner (mcp-transport.ts), a Node process of its
    // own: started now, it loads while the MCP SDK and the server's sandbox are made ready here,
    // rather than after them, when the server's start asks for it.
    if (isStdio(server.config) && process.platform !== "win32") {
      // A failure here is not lost: the server's start imports and starts the spawner again, and
      // fails saying why.
      void import("../spawner/process-spawner.ts").then(
        ({ warmSpawner }) => warmSpawner(),
        () => undefined,
      );
    }
    const connection: McpConnection = new McpConnection({
      name: server.name,
      config: server.config,
      root: this.options.root,
      source: server.source,
      log: slot.log,
      ...(this.options.connectTimeoutMs !== undefined
        ? { connectTimeoutMs: this.options.connectTimeoutMs }
        : {}),
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
      pathProvider: this.options.pathProvider ?? (() => loginShellPath(this.options.latheHome)),
      hiddenEnv: this.options.sandbox.hiddenEnv,
      ...(sandbox ? { sandbox } : {}),
      ...(this.pool && sandbox ? { takeParked: (opened) => this.takeKept(slot, opened.identity) } : {}),
      onReused: (pid) => {
        // It runs in the sandbox (and temp folder) it was started in, kept until it ends.
        slot.kept = slot.taken?.confinement;
        slot.taken = undefined;
        this.started.add(server.name);
        this.emit({
          type: "reused",
          server: server.name,
          layer: server.layer,
          commandLine: slot.commandLine,
          ...(pid !== undefined ? { pid } : {}),
        });
      },
      onStarting: () => {
        // A kept server that was taken but could not be used, or was used and has ended: a
        // process of this slot's own starts now, and theirs are gone.
        const gone = [this.dropTaken(slot), this.dropKept(slot)];
        void Promise.all(gone).catch((err: unknown) =>
          slot.log.note(`removing a temp folder failed: ${(err as Error).message}`),
        );
        const first = !this.started.has(server.name);
        this.started.add(server.name);
        this.emit({
          type: "starting",
          server: server.name,
          layer: server.layer,
          commandLine: slot.commandLine,
          first,
        });
      },
      onState: (state, error) => {
        if (slot.connection !== connection) return;
        if (state === "failed") {
          slot.listing = undefined;
          slot.dirty = true;
        }
        this.emit({
          type: "state",
          server: server.name,
          state: mapState(state),
          ...(error !== undefined ? { error } : {}),
        });
        if (state === "failed") this.emit({ type: "pending", server: server.name });
      },
      onTools: (tools, refused) => {
        if (slot.connection !== connection) return;
        slot.listing = tools;
        slot.refused = refused;
        // Checked now, while other servers may still be starting, not when the tools are bound.
        for (const tool of tools) if (tool.outputSchema) compileOutputSchemaAhead(tool.outputSchema);
        slot.notes = tools.flatMap((tool) => cutDescriptionNote(tool, server.name) ?? []);
        for (const note of slot.notes) {
          if (slot.logged.has(note)) continue;
          slot.logged.add(note);
          slot.log.note(note);
        }
        slot.dirty = true;
        this.emit({ type: "pending", server: server.name });
      },
    });
    slot.connection = connection;
    return connection.start();
  }

  /** The kept server that runs exactly what this slot would start (`identity`), if the pool has one. */
  private takeKept(slot: Slot, identity: string | undefined): ParkedServer | undefined {
    if (identity === undefined || !this.pool) return undefined;
    const kept = this.pool.take(identity, this.slotKey(slot));
    if (!kept) return undefined;
    slot.taken = kept;
    return kept.parked;
  }

  /** Why a server may not start; pins a user's own server on first sight (trust on first use). */
  private blockReason(slot: Slot): string | undefined {
    const { server } = slot;
    const key = serverPinKey(server.name);
    const hash = serverHash(server.config);
    try {
      const status = pinStatus(this.options.trust.pins(slot.scope), key, hash);
      const reason = serverBlockReason(server, status, this.options.root);
      if (reason === undefined && status === "new") this.options.trust.pin(slot.scope, { [key]: hash });
      return reason;
    } catch (err) {
      return `MCP server "${server.name}" was not started: ${(err as Error).message}`;
    }
  }
}

function mapState(state: ConnectionState | undefined): McpServerState {
  if (state === undefined) return "starting";
  return state === "closed" ? "disabled" : state;
}
