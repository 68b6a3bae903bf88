import { statSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { newMcpClient } from "./mcp-client.ts";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.ts";
import { listServerTools, type RefusedTool } from "./mcp-tool-listing.ts";
import { MAX_MESSAGE_BYTES, megabytes, TOO_LARGE } from "./message-lines.ts";

/** The SDK's error codes this file tells apart (its ErrorCode enum, without loading the SDK). */
const ErrorCode = { ConnectionClosed: -32000, RequestTimeout: -32001 } as const;

/** An error the SDK raised, checked by shape so the SDK need not be loaded to ask. */
function isMcpError(err: unknown): err is Error & { code: number; data?: unknown } {
  return (
    err instanceof Error && err.name === "McpError" && typeof (err as { code?: unknown }).code === "number"
  );
}

/**
 * Whether the SDK raised this error itself because the connection closed (or a call was cancelled),
 * rather than passing on a server's answer. -32000 is the SDK's code for that, but also the first
 * of JSON-RPC's "server error" codes, which servers use for their own refusals (the SDK passes
 * those on with the server's code and words), so the SDK's own is told by its own words.
 */
function isConnectionClosed(err: unknown): boolean {
  return (
    isMcpError(err) &&
    err.code === ErrorCode.ConnectionClosed &&
    /^MCP error -32000: (?:Connection closed|Request was cancelled)$/.test(err.message)
  );
}

/**
 * Whether the SDK's own timer ran out (it puts the limit in `data.timeout`), rather than a server
 * answering with -32001, a code servers use too (an upstream service of theirs timed out).
 */
function isOwnTimeout(err: unknown): boolean {
  if (!isMcpError(err) || err.code !== ErrorCode.RequestTimeout) return false;
  const data = err.data as { timeout?: unknown } | undefined;
  return typeof data?.timeout === "number";
}

/** The size of an answer the transport dropped as too large (see message-lines.ts), if that is what failed. */
function tooLargeBytes(err: Error & { data?: unknown }): number | undefined {
  const data = err.data as { lathe?: unknown; bytes?: unknown } | undefined;
  return data?.lathe === TOO_LARGE && typeof data.bytes === "number" ? data.bytes : undefined;
}

/** The SDK's schema check of an answer failed (a zod error: its issues, by shape). */
function isSchemaError(
  err: unknown,
): err is Error & { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return err instanceof Error && Array.isArray((err as { issues?: unknown }).issues);
}
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { McpServerConfig } from "../config/lathe-settings.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import { commandLine, isStdio, serverCwd } from "./mcp-command-line.ts";
import { httpFailure } from "./mcp-http-failure.ts";
import type { McpServerLog } from "./mcp-server-log.ts";
import { settlesWithin } from "./server-stderr.ts";
import { openTransport, type OpenedTransport } from "./mcp-transport.ts";
import { SpawnedStdioTransport } from "./spawned-stdio-transport.ts";

export type ConnectionState = "starting" | "connected" | "reconnecting" | "failed" | "closed";

/**
 * A connected stdio server taken out of its connection, still running, for another engine that
 * would start exactly the same process (see McpServerPool). While parked, a `list_changed` makes
 * it `stale` and its end makes it `gone` (then `onGone` is called).
 */
export interface ParkedServer {
  /** What exactly runs (OpenedTransport.identity). */
  readonly identity: string;
  readonly client: Client;
  readonly opened: OpenedTransport;
  readonly tools: Tool[];
  readonly refused: RefusedTool[];
  stale: boolean;
  gone: boolean;
  onGone: (() => void) | undefined;
}

/** Stop a parked server: end the connection, which ends its process. */
export async function stopParked(parked: ParkedServer): Promise<void> {
  parked.onGone = undefined;
  await parked.client.close();
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

interface McpConnectionOptions {
  name: string;
  config: McpServerConfig;
  root: string;
  /** The settings file the server came from, for messages. */
  source: string;
  log: McpServerLog;
  /** Limit for the handshake and each `tools/list`. */
  connectTimeoutMs?: number;
  backoff?: Backoff;
  /** Reconnect after a connected server dies (default true). */
  reconnect?: boolean;
  /** The PATH a stdio server starts with (the login shell's: loginShellPath). */
  pathProvider: () => Promise<string>;
  /**
   * Names and patterns of the variables a stdio server starts without, confined or not
   * (EngineSandbox.hiddenEnv: Lathe's keys and `sandbox.denyEnv`), save its own `allowEnv`.
   */
  hiddenEnv: readonly string[];
  /** The OS sandbox a stdio server runs in when it is active (none: it runs unconfined). */
  sandbox?: ProcessSandbox;
  /** Called just before each process start or HTTP connect. */
  onStarting?(): void;
  /**
   * Asked before a process starts: a running server this engine may use instead, which was
   * started exactly as this one would be (`opened.identity`; see McpServerPool). When one is
   * handed over, `onStarting` is not called, and `onReused` is.
   */
  takeParked?(opened: OpenedTransport): ParkedServer | undefined;
  /** A server kept running since an earlier engine is used instead of a start (its process id). */
  onReused?(pid: number | undefined): void;
  onState?(state: ConnectionState, error: string | undefined): void;
  /**
   * Each full tool listing: after every (re)connect and every `list_changed`; `refused` are the
   * listed entries no call can use (malformed, or a name listed twice).
   */
  onTools?(tools: Tool[], refused: RefusedTool[]): void;
}

/** A connection that lasted this long resets the backoff. */
const STABLE_MS = 30_000;
/**
 * Least time from one tool listing to the next that list_changed asks for: notifications that
 * come meanwhile make one listing, so a server announcing a change at every listing (or in a
 * burst) is listed about once a second, not in a loop.
 */
const RELIST_MS = 1_000;

/**
 * How long the error of a server that exited as it started waits for its stderr to end: what it
 * wrote last (often why it stopped) may still be in the pipe when its exit is seen, or be written
 * by a helper it started, and the message quotes it.
 */
const STDERR_SETTLE_MS = 1_000;

/**
 * One MCP server: connect (spawn or HTTP), list its tools, follow `list_changed`, and when a
 * connected server dies, reconnect with exponential backoff while calls report why they cannot run.
 */
export class McpConnection {
  readonly name: string;
  private readonly options: McpConnectionOptions;
  private readonly timeoutMs: number;
  private readonly backoff: Backoff;
  private stateValue: ConnectionState = "starting";
  private client: Client | undefined;
  private opened: OpenedTransport | undefined;
  /**
   * The started stdio servers whose stderr may still come to this connection's log (the one
   * connected, and ended ones whose pipe has not drained yet): close waits for them.
   */
  private readonly stderrs = new Set<OpenedTransport>();
  /** The SDK, once loaded by a connect (for `park()`). */
  private sdk: McpSdk | undefined;
  private attemptClient: Client | undefined;
  private generation = 0;
  private everConnected = false;
  private attempts = 0;
  private connectedAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private retryAt: number | undefined;
  /** When the tools were last listed, and whether a listing list_changed asked for is under way or due. */
  private listedAt = 0;
  private relisting = false;
  private relistAgain = false;
  private relistTimer: NodeJS.Timeout | undefined;
  private error: string | undefined;
  /** Writes the note of a loss whose reason may still be coming (see `lost`). */
  private lossNote: (() => void) | undefined;
  /** The latest tool listing, kept for `park()`. */
  private tools: Tool[] = [];
  private refused: RefusedTool[] = [];
  /** Calls waiting for the server's answer. */
  private inFlight = 0;
  /**
   * A call was abandoned (stopped, or out of time) while the server may still be working on it:
   * the server is not handed to another engine, whose calls its late work could disturb.
   */
  private abandoned = false;
  /** Settles the first connect's `launched`. */
  private launchedNow: () => void = () => undefined;
  /**
   * Resolves once the first connect has asked for the server (its process requested, or its
   * HTTP connection begun) or has ended without that (failed, or a kept server used instead).
   */
  readonly launched: Promise<void> = new Promise((resolve) => {
    this.launchedNow = resolve;
  });

  constructor(options: McpConnectionOptions) {
    this.name = options.name;
    this.options = options;
    this.timeoutMs = options.connectTimeoutMs ?? 30_000;
    this.backoff = options.backoff ?? { initialMs: 500, maxMs: 30_000 };
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  get lastError(): string | undefined {
    return this.error;
  }

  /** The server's process id while a stdio server is connected. */
  get pid(): number | undefined {
    return this.stateValue === "connected" ? this.opened?.pid() : undefined;
  }

  /** The first connect; resolves once it succeeded or failed, never rejects. */
  start(): Promise<void> {
    return this.attempt().finally(() => this.launchedNow());
  }

  /** Call a tool; throws ToolCallError when the server is not connected or refuses the call. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    const client = this.client;
    const generation = this.generation;
    if (!client || this.stateValue !== "connected") throw new ToolCallError(this.unavailableMessage());
    this.inFlight++;
    try {
      // Not client.callTool: its output-schema check uses the SDK's cache of the last tools/list
      // page only; the tool checks its answer against its own schema (mcp-output-schema.ts).
      const sdk = await loadMcpSdk();
      const result = await client.request(
        { method: "tools/call", params: { name: tool, arguments: args } },
        sdk.CallToolResultSchema,
        { signal, timeout: timeoutMs },
      );
      if ("toolResult" in result) {
        return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
      }
      return result as CallToolResult;
    } catch (err) {
      if (signal.aborted || isOwnTimeout(err)) this.abandoned = true;
      if (signal.aborted) throw err;
      const tooLarge = isMcpError(err) ? tooLargeBytes(err) : undefined;
      if (tooLarge !== undefined) {
        throw new ToolCallError(
          `MCP server "${this.name}" ran ${tool}, but its answer was ${megabytes(tooLarge)}, more than the ${megabytes(MAX_MESSAGE_BYTES)} Lathe reads from an MCP server, so it was dropped (the server stays connected). Ask for less: narrower arguments, a smaller page or range.`,
          "tool_call",
          { cause: err },
        );
      }
      if (isSchemaError(err)) {
        const issues = err.issues
          .slice(0, 5)
          .map(
            (issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(the result)"}: ${issue.message}`,
          )
          .join("; ");
        throw new ToolCallError(
          `MCP server "${this.name}" answered the call to ${tool} with a result that is not valid MCP (${issues}), so it may or may not have run, and what it answered cannot be read. The server's author has to fix it; do not repeat a call that changes something without checking whether it happened.`,
          "tool_call",
          { cause: err },
        );
      }
      if (isMcpError(err) && !isConnectionClosed(err)) {
        throw new ToolCallError(
          `MCP server "${this.name}" refused the call to ${tool}: ${err.message}`,
          "tool_call",
          {
            cause: err,
          },
        );
      }
      if (!isStdio(this.options.config)) this.lost(generation, (err as Error).message);
      throw new ToolCallError(
        `MCP server "${this.name}" disconnected during the call to ${tool}, so it may or may not have run. ${this.unavailableMessage()}`,
        "tool_call",
        { cause: err },
      );
    } finally {
      this.inFlight--;
    }
  }

  /** Why calls cannot run right now: the state, when the next try is, and the last error. */
  unavailableMessage(): string {
    const last = this.error ? `; last error: ${this.error}` : "";
    switch (this.stateValue) {
      case "starting":
        return `MCP server "${this.name}" is still starting. Try again in a moment.`;
      case "reconnecting": {
        const wait =
          this.retryAt === undefined ? 0 : Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000));
        const when = wait > 0 ? `reconnecting in ${wait} s` : "reconnecting now";
        return `MCP server "${this.name}" is not connected (${when}${last}). Try again later, or carry on without it.`;
      }
      case "failed":
        return `MCP server "${this.name}" is not connected: it failed to start (${this.error ?? "unknown error"}). A person can fix it in ${this.options.source} and restart the server.`;
      case "closed":
        return `MCP server "${this.name}" has been shut down.`;
      case "connected":
        return `MCP server "${this.name}" is connected.`;
    }
  }

  /**
   * Let go of a connected stdio server without stopping it, for another engine to use (see
   * McpServerPool): only when it is idle — no call waiting, none abandoned, no relisting under
   * way — and it is one that can be told apart exactly (OpenedTransport.identity). Afterwards
   * this connection is closed. Undefined, changing nothing, when the server cannot be handed on.
   */
  park(): ParkedServer | undefined {
    const { client, opened, sdk } = this;
    const identity = opened?.identity;
    if (this.stateValue !== "connected" || !client || !opened || !sdk || identity === undefined)
      return undefined;
    if (this.inFlight > 0 || this.abandoned || this.relisting || this.relistTimer) return undefined;
    this.generation++;
    this.client = undefined;
    this.opened = undefined;
    // It runs on: its stderr goes on to this log until another engine takes it (logTo).
    this.stderrs.delete(opened);
    this.setState("closed", undefined);
    const parked: ParkedServer = {
      identity,
      client,
      opened,
      tools: this.tools,
      refused: this.refused,
      stale: false,
      gone: false,
      onGone: undefined,
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      parked.stale = true;
    });
    client.onclose = () => {
      parked.gone = true;
      parked.onGone?.();
    };
    const log = this.options.log;
    client.onerror = (err) => log.note(`transport error: ${err.message}`);
    return parked;
  }

  /** Stop the server (its process is ended) and any pending reconnect. */
  async close(): Promise<void> {
    this.writeLossNote();
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.relistTimer) clearTimeout(this.relistTimer);
    this.relistTimer = undefined;
    this.setState("closed", undefined);
    const clients = [this.client, this.attemptClient].filter((c): c is Client => c !== undefined);
    this.client = undefined;
    this.attemptClient = undefined;
    await Promise.all(clients.map((c) => this.closeClient(c)));
    // Its stderr drains after it ended: once read to the end (or a bounded wait), nothing more
    // of it reaches the log, so the log is complete when close resolves.
    const stopped = [...this.stderrs];
    this.stderrs.clear();
    await Promise.all(stopped.map((opened) => opened.finishLog()));
  }

  /** Wait for this server's stderr at close, until it has ended by itself. */
  private followStderr(opened: OpenedTransport): void {
    this.stderrs.add(opened);
    void opened.stderrEnded.then(() => this.stderrs.delete(opened));
  }

  private setState(state: ConnectionState, error: string | undefined): void {
    const changed = state !== this.stateValue;
    this.stateValue = state;
    if (changed || state === "reconnecting") this.options.onState?.(state, error);
  }

  private async closeClient(client: Client): Promise<void> {
    try {
      await client.close();
    } catch (err) {
      this.options.log.note(`closing the connection failed: ${(err as Error).message}`);
    }
  }

  /** Follow a client's list changes, its end and its transport's errors, for this generation. */
  private watch(
    client: Client,
    transport: OpenedTransport["transport"],
    generation: number,
    sdk: McpSdk,
  ): void {
    const { log } = this.options;
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.refresh(generation, sdk));
    client.onclose = () => {
      if (transport instanceof SpawnedStdioTransport && transport.closedBecause !== undefined) {
        this.lost(generation, transport.closedBecause, "Lathe closed the connection");
        return;
      }
      if (transport instanceof SpawnedStdioTransport && transport.stoppedBecause !== undefined) {
        this.lost(generation, transport.stoppedBecause, "Lathe stopped the server");
        return;
      }
      this.lost(
        generation,
        // Its process spawner died, and took it down (the server's log has the spawner's why).
        transport instanceof SpawnedStdioTransport && transport.end && "lost" in transport.end
          ? "the process spawner that started it stopped"
          : undefined,
      );
    };
    client.onerror = (err) => log.note(`transport error: ${err.message}`);
  }

  /**
   * Use a server kept running since an earlier engine instead of starting one; resolves false,
   * changing nothing, when it turns out to have ended meanwhile (a start follows then).
   */
  private async adopt(generation: number, parked: ParkedServer, sdk: McpSdk): Promise<boolean> {
    const { client, opened } = parked;
    if (parked.gone) return false;
    parked.onGone = undefined;
    opened.logTo(this.options.log);
    this.followStderr(opened);
    this.watch(client, opened.transport, generation, sdk);
    let { tools, refused } = parked;
    if (parked.stale) {
      // It announced a change while no engine used it: its tools are listed again first.
      try {
        ({ tools, refused } = await listServerTools(client, sdk, this.timeoutMs));
      } catch (err) {
        this.options.log.note(`listing the tools of the kept server failed: ${(err as Error).message}`);
        await this.closeClient(client);
        return false;
      }
      if (generation !== this.generation) {
        await this.closeClient(client);
        return true;
      }
    }
    this.options.onReused?.(opened.pid());
    const pid = opened.pid() === undefined ? "" : ` (pid ${opened.pid()})`;
    this.connected(
      { client, opened, sdk, tools, refused },
      `using the server kept running since an earlier command${pid}`,
    );
    return true;
  }

  /**
   * The server is ready for calls, started now or kept since an earlier engine: its client, its
   * tools, and the time from which a later loss counts (backoff, relisting).
   */
  private connected(
    ready: { client: Client; opened: OpenedTransport; sdk: McpSdk; tools: Tool[]; refused: RefusedTool[] },
    how: string,
  ): void {
    const { client, opened, sdk, tools, refused } = ready;
    this.client = client;
    this.opened = opened;
    this.sdk = sdk;
    this.everConnected = true;
    this.connectedAt = Date.now();
    this.retryAt = undefined;
    this.listedAt = Date.now();
    this.options.log.note(`${how}; ${tools.length} tool${tools.length === 1 ? "" : "s"}`);
    this.setState("connected", undefined);
    this.tools = tools;
    this.refused = refused;
    this.options.onTools?.(tools, refused);
  }

  private async attempt(): Promise<void> {
    this.writeLossNote();
    const generation = ++this.generation;
    const { log, config } = this.options;
    // With servers kept running to ask first, whether one starts is known only once its start is planned.
    const mayReuse = this.options.takeParked !== undefined;
    const starting = (): void => {
      this.options.onStarting?.();
      log.note(`starting: ${commandLine(config, this.options.root)}`);
    };
    if (!mayReuse) starting();
    let client: Client | undefined;
    let opened: OpenedTransport | undefined;
    let handshakeDone = false;
    try {
      opened = await openTransport(
        config,
        this.options.root,
        log,
        this.options.pathProvider,
        this.options.hiddenEnv,
        this.options.sandbox,
      );
      // Superseded before it started (the transport starts its server when the client connects).
      if (generation !== this.generation) return;
      const sdk = await loadMcpSdk();
      if (mayReuse) {
        const parked = this.options.takeParked?.(opened);
        if (parked && (await this.adopt(generation, parked, sdk))) return;
        if (generation !== this.generation) return;
        starting();
      }
      client = newMcpClient(sdk);
      this.attemptClient = client;
      this.watch(client, opened.transport, generation, sdk);
      this.followStderr(opened);
      const connecting = client.connect(opened.transport, { timeout: this.timeoutMs });
      // The transport has started the server (or its HTTP connection) by now.
      this.launchedNow();
      await connecting;
      handshakeDone = true;
      // A server without the tools capability (resources or prompts only) offers no tools.
      const { tools, refused } = client.getServerCapabilities()?.tools
        ? await listServerTools(client, sdk, this.timeoutMs)
        : { tools: [], refused: [] };
      if (generation !== this.generation) {
        await this.closeClient(client);
        return;
      }
      this.attemptClient = undefined;
      this.connected({ client, opened, sdk, tools, refused }, "connected");
    } catch (err) {
      if (generation !== this.generation) return;
      this.attemptClient = undefined;
      if (client) await this.closeClient(client);
      // A server that exited may not be done saying why: its stderr is read apart from its
      // output, and a helper it started may still be writing to it. What it says is quoted.
      if (opened && isConnectionClosed(err) && !(await settlesWithin(opened.stderrEnded, STDERR_SETTLE_MS)))
        log.note(
          `its stderr was still open ${STDERR_SETTLE_MS} ms after it exited: the error quotes what it had said`,
        );
      if (generation !== this.generation) return;
      this.error = this.describeFailure(err, opened, handshakeDone);
      log.note(`could not connect: ${this.error}`);
      if (this.everConnected && this.options.reconnect !== false) this.scheduleRetry();
      else this.setState("failed", this.error);
    }
  }

  private describeFailure(err: unknown, opened: OpenedTransport | undefined, handshakeDone: boolean): string {
    const config = this.options.config;
    const { code, path: searched } = err as NodeJS.ErrnoException;
    const output = this.options.log.lastOutput();
    const said = output ? ` (its last output: ${output})` : "";
    if (isStdio(config) && code === "ENOENT") {
      // A path is looked for where it says; only a bare name is searched for on PATH.
      const isPath = /[\\/]/.test(config.command);
      const file = path.resolve(serverCwd(config, this.options.root), config.command);
      if (isPath && statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
        return `the command "${config.command}" is a folder (${file}), not a program: point "command" in ${this.options.source} at the program that starts the server (such as "node", with its script in "args")`;
      }
      const tilde = config.command.startsWith("~")
        ? `; a command is not run by a shell, so "~" is not your home folder: write the whole path`
        : "";
      // A PATH the server's own "env" sets replaces the one Lathe would give it: say so, or the
      // person looks for the program where their shell finds it.
      const ownPath = !isPath && config.env["PATH"] !== undefined;
      const where = isPath
        ? `there is no such file${tilde}`
        : `searched PATH${ownPath ? `, as "env" sets it` : ""}: ${opened?.path ?? searched ?? "(none)"}`;
      const fix = ownPath
        ? `fix "command" (or add its folder to "PATH" in "env", or remove that PATH)`
        : `fix "command"`;
      return `the command "${config.command}" was not found (${where}). Install it, or ${fix} in ${this.options.source}`;
    }
    if (isStdio(config) && code === "EACCES") {
      return `the command "${config.command}" is not executable. Fix its permissions, or "command" in ${this.options.source}`;
    }
    const http = isStdio(config) ? undefined : httpFailure(err, config.url, this.options.source);
    if (http !== undefined) return http;
    if (isConnectionClosed(err)) {
      return `the server exited before it finished starting${said}`;
    }
    if (isOwnTimeout(err)) {
      return `the server did not answer within ${Math.round(this.timeoutMs / 1000)} s${said}`;
    }
    const tooLarge = isMcpError(err) ? tooLargeBytes(err) : undefined;
    if (tooLarge !== undefined) {
      const what = handshakeDone ? "its tools/list answer" : "its answer to the handshake";
      const fix = handshakeDone ? ": the server's author can answer it in pages (nextCursor)" : "";
      return `${what} was ${megabytes(tooLarge)}, more than the ${megabytes(MAX_MESSAGE_BYTES)} Lathe reads from an MCP server${fix}`;
    }
    if (isMcpError(err)) {
      // The server answered the handshake, or its tool listing, with an error of its own.
      const refused = handshakeDone ? "refused to list its tools" : "refused to start";
      return `the server ${refused}: ${err.message}${said}`;
    }
    return `${(err as Error).message ?? String(err)}${said}`;
  }

  private lost(generation: number, reason: string | undefined, happened?: string): void {
    if (generation !== this.generation || this.stateValue !== "connected") return;
    const client = this.client;
    const opened = this.opened;
    this.client = undefined;
    const what =
      happened ?? (isStdio(this.options.config) ? "the server process exited" : "the connection was lost");
    const describe = (): string => {
      const output = this.options.log.lastOutput();
      return `${what}${reason ? `: ${reason}` : ""}${output ? ` (its last output: ${output})` : ""}`;
    };
    this.error = describe();
    if (client && !isStdio(this.options.config)) void this.closeClient(client);
    // The state changes now: calls are refused and the retry is timed from the loss.
    let retrying: string | undefined;
    if (this.options.reconnect === false) this.setState("failed", this.error);
    else retrying = this.scheduleRetry(false);
    const log = this.options.log;
    // The log says the loss once, with its reason: a stdio server's once its stderr has had its
    // say (the reason often comes just after the exit), or sooner when something else of this
    // connection is logged (a new attempt, the close).
    this.lossNote = () => {
      log.note(describe());
      if (retrying !== undefined) log.note(retrying);
    };
    if (opened) void this.quoteLastWords(generation, opened, describe);
    else this.writeLossNote();
  }

  /** The loss not logged yet, logged now (before anything else this connection logs). */
  private writeLossNote(): void {
    const write = this.lossNote;
    this.lossNote = undefined;
    write?.();
  }

  /**
   * A server that died may not be done saying why: its stderr is read apart from its output, and
   * a helper it started may still be writing to it. Once it has ended (or STDERR_SETTLE_MS on),
   * the message is composed again and, when it now quotes more, replaces the one given at the
   * loss, unless a new attempt (or close) came meanwhile: its own output is no longer this one's.
   */
  private async quoteLastWords(
    generation: number,
    opened: OpenedTransport,
    describe: () => string,
  ): Promise<void> {
    const said = this.error;
    await settlesWithin(opened.stderrEnded, STDERR_SETTLE_MS);
    // A new attempt, or the close, logged the loss already (this one's, or a later one's).
    if (generation !== this.generation) return;
    const error = describe();
    if (this.error === said && error !== said) {
      this.error = error;
      this.options.onState?.(this.stateValue, error);
    }
    this.writeLossNote();
  }

  /** Plan the next attempt; `log: false` returns the log's note about it instead of writing it. */
  private scheduleRetry(log = true): string {
    if (this.connectedAt !== undefined && Date.now() - this.connectedAt >= STABLE_MS) this.attempts = 0;
    this.connectedAt = undefined;
    const delay = Math.min(this.backoff.initialMs * 2 ** this.attempts, this.backoff.maxMs);
    this.attempts++;
    this.retryAt = Date.now() + delay;
    const note = `reconnecting in ${delay} ms`;
    if (log) this.options.log.note(note);
    this.setState("reconnecting", this.error);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.attempt();
    }, delay);
    this.timer.unref();
    return note;
  }

  /** List the tools again after list_changed: at most one listing at a time, RELIST_MS apart. */
  private refresh(generation: number, sdk: McpSdk): void {
    if (!this.client || generation !== this.generation) return;
    if (this.relisting) {
      this.relistAgain = true;
      return;
    }
    this.relisting = true;
    const list = (): void => {
      this.relistTimer = undefined;
      const client = this.client;
      if (!client || generation !== this.generation) {
        this.relisted(sdk);
        return;
      }
      listServerTools(client, sdk, this.timeoutMs)
        .then(
          ({ tools, refused }) => {
            if (generation !== this.generation) return;
            this.tools = tools;
            this.refused = refused;
            this.options.onTools?.(tools, refused);
          },
          (err: unknown) =>
            this.options.log.note(
              `refreshing the tool list after list_changed failed: ${(err as Error).message}`,
            ),
        )
        .finally(() => {
          this.listedAt = Date.now();
          this.relisted(sdk);
        });
    };
    const wait = this.listedAt + RELIST_MS - Date.now();
    if (wait <= 0) list();
    else {
      this.relistTimer = setTimeout(list, wait);
      this.relistTimer.unref();
    }
  }

  /** A listing list_changed asked for is over: list again if another came meanwhile. */
  private relisted(sdk: McpSdk): void {
    this.relisting = false;
    if (!this.relistAgain) return;
    this.relistAgain = false;
    this.refresh(this.generation, sdk);
  }
}
