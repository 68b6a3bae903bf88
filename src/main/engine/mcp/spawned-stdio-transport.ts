import { PassThrough } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { RemoteServer, ServerEnd } from "../spawner/spawner-client.ts";
import type { McpSdk } from "./mcp-sdk.ts";

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

  private readonly launch: () => Promise<RemoteServer>;
  private readonly sdk: McpSdk;
  private readonly readBuffer: InstanceType<McpSdk["ReadBuffer"]>;
  private server: RemoteServer | undefined;
  /** The server being started (set by start; the spawner answers later). */
  private launching: Promise<RemoteServer> | undefined;
  private closing = false;
  private markClosed: () => void = () => undefined;
  private readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(launch: () => Promise<RemoteServer>, sdk: McpSdk) {
    this.launch = launch;
    this.sdk = sdk;
    this.readBuffer = new sdk.ReadBuffer();
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.end === undefined ? this.server?.pid : undefined;
  }

  async start(): Promise<void> {
    if (this.launching) throw new Error("SpawnedStdioTransport already started");
    this.launching = this.launch();
    const server = await this.launching;
    this.server = server;
    server.stderr.pipe(this.stderr);
    server.stdin.on("error", (err) => this.onerror?.(err));
    server.stdout.on("error", (err) => this.onerror?.(err));
    server.stdout.on("data", (chunk: Buffer) => {
      try {
        this.readBuffer.append(chunk);
        this.deliver();
      } catch (err) {
        this.onerror?.(err as Error);
        void this.close();
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
      this.markClosed();
      this.onclose?.();
    });
  }

  private deliver(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (err) {
        // One line that is not a JSON-RPC message: said, and the next one is read.
        this.onerror?.(err as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
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
    this.readBuffer.clear();
  }
}
