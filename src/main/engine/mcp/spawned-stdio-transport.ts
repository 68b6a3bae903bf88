import { PassThrough } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { RemoteServer, ServerEnd } from "../spawner/spawner-client.ts";
import type { McpSdk } from "./mcp-sdk.ts";
import {
  MAX_MESSAGE_BYTES,
  megabytes,
  MessageLines,
  oversizedResponseId,
  TOO_LARGE,
  type OversizedLine,
} from "./message-lines.ts";

/** What the SDK's client connects over. */
type Transport = Parameters<Client["connect"]>[0];

/** How long a server has to exit after its input ends, and again after SIGTERM (as the SDK's own). */
const STOP_GRACE_MS = 2000;

/** Resolves true once `done` settles, false after `ms` (a timer that keeps nobody waiting). */
function within(done: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);
}

/**
 * The MCP stdio transport over a server the process spawner started (see spawner-server.ts):
 * the SDK's StdioClientTransport contract — newline-delimited JSON-RPC on the server's stdin and
 * stdout, its stderr readable before it starts, a close that ends its input, then SIGTERM, then
 * SIGKILL — but the host never forks it, so starting one never blocks a large host's event loop.
 */
export class SpawnedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The server's stderr: readable from the start, fed once it runs (the server's log reads it). */
  readonly stderr = new PassThrough();
  /** How it ended, once it has (its exit status, or that its spawner died). */
  end: ServerEnd | undefined;
  /** Why Lathe closed the connection itself, when it did (a message too large to tell apart). */
  closedBecause: string | undefined;
  /** Why Lathe stopped the server, when it did (a path its sandbox held changed: mount-guard.ts). */
  stoppedBecause: string | undefined;

  private readonly launch: () => Promise<RemoteServer>;
  private readonly sdk: McpSdk;
  private readonly lines = new MessageLines();
  private server: RemoteServer | undefined;
  /** The server being started (set by start; the spawner answers later). */
  private launching: Promise<RemoteServer> | undefined;
  private closing = false;
  private markClosed: () => void = () => undefined;
  private readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(launch: () => Promise<RemoteServer>, sdk: McpSdk) {
    this.launch = launch;
    this.sdk = sdk;
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.end === undefined ? this.server?.pid : undefined;
  }

  async start(): Promise<void> {
    if (this.launching) throw new Error("SpawnedStdioTransport already started");
    this.launching = this.launch();
    let server: RemoteServer;
    try {
      server = await this.launching;
    } catch (err) {
      // No server, no stderr: its readers see it end.
      this.stderr.end();
      throw err;
    }
    this.server = server;
    server.stderr.pipe(this.stderr);
    server.stdin.on("error", (err) => this.onerror?.(err));
    server.stdout.on("error", (err) => this.onerror?.(err));
    server.stdout.on("data", (chunk: Buffer) => {
      for (const read of this.lines.push(chunk)) {
        if ("line" in read) this.deliver(read.line);
        else this.tooLarge(read.oversized);
      }
    });
    // Closed once it has exited and its output is read to the end, as a child process's "close".
    // (It may have closed already: a server that exits at once, before this turn.)
    const outputEnded = new Promise<void>((resolve) =>
      server.stdout.closed ? resolve() : server.stdout.once("close", () => resolve()),
    );
    void Promise.all([server.ended, outputEnded]).then(([end]) => {
      this.end = end;
      if ("lost" in end) this.onerror?.(end.lost);
      else if (end.stoppedBecause !== undefined) this.stoppedBecause = end.stoppedBecause;
      this.markClosed();
      this.onclose?.();
    });
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.sdk.deserializeMessage(line);
    } catch (err) {
      // One line that is not a JSON-RPC message: said, and the next one is read.
      this.onerror?.(err as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * A message past the cap is not read. When it answers one of Lathe's requests, that request
   * fails saying so and the server stays connected; a request or notification of the server's
   * is dropped; when which it is cannot be told, the connection is closed (a reconnect follows).
   */
  private tooLarge(line: OversizedLine): void {
    const size = megabytes(line.bytes);
    const limit = megabytes(MAX_MESSAGE_BYTES);
    const id = oversizedResponseId(line);
    const asked = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:[^,]*,\s*)?"method"\s*:/.test(
      line.head,
    );
    if (id !== undefined) {
      this.onerror?.(
        new Error(
          `it answered request ${id} with ${size}, more than the ${limit} Lathe reads; that answer was dropped`,
        ),
      );
      this.onmessage?.({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32603,
          message: `the answer was ${size}, more than the ${limit} Lathe reads from an MCP server`,
          data: { lathe: TOO_LARGE, bytes: line.bytes },
        },
      });
    } else if (asked) {
      this.onerror?.(
        new Error(
          `it sent a request or notification of ${size}, more than the ${limit} Lathe reads; it was dropped`,
        ),
      );
    } else {
      this.closedBecause = `it sent a message of ${size}, more than the ${limit} Lathe reads from an MCP server, and which request it answered could not be told`;
      this.onerror?.(new Error(this.closedBecause));
      void this.close();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server?.stdin;
    if (!stdin || this.closing || this.end !== undefined) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(this.sdk.serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /**
   * End its input, then SIGTERM, then SIGKILL, each after a grace period without an exit. Closed
   * while it is still being started, it is stopped as soon as it runs.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const server = this.server ?? (await this.launching?.catch(() => undefined));
    if (server && this.end === undefined) {
      server.stdin.end();
      if (!(await within(this.closed, STOP_GRACE_MS))) {
        server.signal("SIGTERM");
        if (!(await within(this.closed, STOP_GRACE_MS))) server.signal("SIGKILL");
      }
    }
    // Closed before it was started (or its start failed): its stderr will carry nothing.
    if (!server && !this.stderr.writableEnded) this.stderr.end();
    this.lines.clear();
  }
}
