// `lathe serve`: the built renderer and the app's API on a loopback port, so the UI runs in any
// browser. A random token in the printed URL is the only key: no token, no page, no socket.
import { createReadStream } from "node:fs";
import { access, realpath } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { pipeline } from "node:stream/promises";
import { WebSocketServer, type WebSocket } from "ws";
import { parseTabId, TAB_PARAM } from "../../shared/tab-id.ts";
import { MAX_REQUEST_BYTES, TOKEN_PARAM, WS_PATH } from "../../shared/ws-protocol.ts";
import { EngineHost } from "../api/engine-host.ts";
import { isAllowedOrigin } from "../api/sender-check.ts";
import { UiConnection } from "../api/ui-connection.ts";
import type { UnsandboxedMcpGate } from "../api/unsandboxed-mcp-gate.ts";
import type { Engine } from "../engine/index.ts";
import { ProviderKeys } from "../secrets/provider-keys.ts";
import { newAccessToken, readCookie, tokenMatches } from "./access-token.ts";
import { serveApiSocket, socketPushSender } from "./api-socket.ts";
import { contentTypeFor, lookupStaticFile } from "./static-files.ts";
import { logServeError } from "./serve-log.ts";

interface ServeOptions {
  /** The engine to serve; the caller closes it. */
  engine: Engine;
  /**
   * A fresh engine for the same folder, used after the user trusts the project (policy is read
   * when an engine is created). Defaults to `Engine.create` with the same root and LATHE_HOME.
   */
  createEngine?: (root: string) => Promise<Engine>;
  /** 0 picks a free port. */
  port: number;
  /** A loopback address; 127.0.0.1 by default. Anything else is refused. */
  host?: string;
  /** The built renderer (`out/renderer`), holding `index.html`. */
  rendererDir: string;
  /** Who is asked before an MCP server starts unconfined (its approver went to `engine`). */
  unsandboxedMcp?: UnsandboxedMcpGate;
}

export interface ServeHandle {
  /** `http://127.0.0.1:<port>/?token=<token>`: the one URL that opens the UI. */
  url: string;
  token: string;
  port: number;
  /**
   * Stop serving: drop every connection (their waiting approvals are rejected, their calls
   * aborted, their sessions closed) and close the engines created after a trust. The engine
   * passed in stays open: the caller owns it.
   */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1"]);

/**
 * How long a connection has to answer a ping when another one presents its tab id: a page still
 * open answers at once (its browser does, whatever the page's script is doing); one that reloaded
 * has closed its socket, and one whose network dropped never answers.
 */
const ALIVE_WAIT_MS = 1_500;

const COMMON_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};
// The same policy as the built page's meta tag (electron.vite.config.ts): inline styles for xterm.js.
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
};

const MESSAGES = {
  401: "lathe serve: access needs the token. Open the exact URL that `lathe serve` printed (it ends with ?token=...).",
  403: "lathe serve: access refused. The token is wrong, or the request did not come from this server's own page.",
} as const;

/**
 * Refused for its Host header: another name for this address (localhost), or a DNS-rebinding
 * page. Either way the page must be opened at the printed address; naming it reveals nothing.
 */
function wrongHost(origin: string): string {
  return `lathe serve: access refused. This server answers only at ${origin}/, the address it printed; open the URL it printed (${origin}/?token=...), not another name for it such as localhost.`;
}

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const listenHost = options.host ?? "127.0.0.1";
  if (!LOOPBACK_HOSTS.has(listenHost)) {
    throw new Error(`lathe serve listens on loopback only; "${listenHost}" is not 127.0.0.1 or ::1.`);
  }
  const rendererDir = await builtRenderer(options.rendererDir);
  const token = newAccessToken();
  // What the page's cookie carries so its files load: never the token. A browser sends
  // 127.0.0.1's cookies to every port of it, so any local web server the person visits reads it.
  const assetKey = newAccessToken();
  const engineHost = new EngineHost({
    engine: options.engine,
    ...(options.createEngine ? { createEngine: options.createEngine } : {}),
    ...(options.unsandboxedMcp ? { unsandboxedMcp: options.unsandboxedMcp } : {}),
  });

  // Filled in once listening: the port is only known then.
  let origin = "";
  let hostHeader = "";
  let cookieName = "";

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      logServeError("a request failed", error);
      if (!res.headersSent) sendText(res, 500, "lathe serve: internal error; see the terminal.");
      else res.destroy();
    });
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_REQUEST_BYTES });
  const sockets = new Set<WebSocket>();
  const connections = new Set<UiConnection>();
  // A browser page cannot reach the OS keychain: keys come from the environment of lathe serve.
  const providerKeys = new ProviderKeys({
    withoutKeychain: (variables) =>
      `lathe serve has no access to the OS keychain: set ${variables} in the environment of lathe serve instead.`,
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    if (!url) return sendText(res, 400, "lathe serve: malformed request URL.");
    if (req.headers.host !== hostHeader) return sendText(res, 403, wrongHost(origin));
    const fromQuery = url.searchParams.get(TOKEN_PARAM);
    const fromCookie = readCookie(req.headers.cookie, cookieName);
    if (fromQuery === null && fromCookie === undefined) return sendText(res, 401, MESSAGES[401]);
    const allowed = fromQuery !== null ? tokenMatches(fromQuery, token) : tokenMatches(fromCookie, assetKey);
    if (!allowed) return sendText(res, 403, MESSAGES[403]);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return sendText(res, 405, "lathe serve: only GET and HEAD are served here.");
    }
    const found = await lookupStaticFile(rendererDir, url.pathname);
    if (found.status !== 200)
      return sendText(res, found.status, `lathe serve: ${STATUS_TEXT[found.status]}.`);
    const type = contentTypeFor(found.file);
    res.writeHead(200, {
      ...COMMON_HEADERS,
      "Content-Type": type,
      ...(type.startsWith("text/html") ? { "Content-Security-Policy": PAGE_CSP } : {}),
      // The page load carries the token; its assets then authenticate with this cookie.
      ...(fromQuery !== null
        ? { "Set-Cookie": `${cookieName}=${assetKey}; Path=/; HttpOnly; SameSite=Strict` }
        : {}),
    });
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    await pipeline(createReadStream(found.file), res);
  }

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = requestUrl(req);
    if (!url || url.pathname !== WS_PATH) return refuseUpgrade(socket, 404, "lathe serve: no such endpoint.");
    if (req.headers.host !== hostHeader) return refuseUpgrade(socket, 403, wrongHost(origin));
    if (!isAllowedOrigin(req.headers.origin, origin)) return refuseUpgrade(socket, 403, MESSAGES[403]);
    const presented = url.searchParams.get(TOKEN_PARAM);
    if (presented === null) return refuseUpgrade(socket, 401, MESSAGES[401]);
    if (!tokenMatches(presented, token)) return refuseUpgrade(socket, 403, MESSAGES[403]);
    const tab = url.searchParams.get(TAB_PARAM);
    const tabId = tab === null ? undefined : parseTabId(tab);
    if (tab !== null && tabId === undefined) {
      return refuseUpgrade(socket, 400, "lathe serve: the tab id is malformed; reload the page.");
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Each socket is one UI: its own session, approvals and pushes; its tab's runs are its own.
      const connection = new UiConnection({
        host: engineHost,
        send: socketPushSender(ws),
        ...(tabId !== undefined ? { tabId } : {}),
        alive: () => socketAnswers(ws, ALIVE_WAIT_MS),
        providerKeys,
        onHandlerError: (channel, error) => logServeError(`${channel} failed`, error),
      });
      sockets.add(ws);
      connections.add(connection);
      ws.on("close", () => {
        sockets.delete(ws);
        // Kept in the set until closed, so stopping the server waits for it.
        connection
          .close()
          .catch((error: unknown) => logServeError("closing a connection failed", error))
          .finally(() => connections.delete(connection));
      });
      serveApiSocket(ws, connection.router);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, listenHost, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => logServeError("server error", error));
  const port = (server.address() as AddressInfo).port;
  hostHeader = listenHost.includes(":") ? `[${listenHost}]:${port}` : `${listenHost}:${port}`;
  origin = `http://${hostHeader}`;
  cookieName = `lathe_token_${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?${TOKEN_PARAM}=${token}`,
    token,
    port,
    close() {
      closing ??= (async () => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await Promise.all([...connections].map((connection) => connection.close()));
        await engineHost.close();
      })();
      return closing;
    },
  };
}

async function builtRenderer(dir: string): Promise<string> {
  const index = path.join(dir, "index.html");
  try {
    await access(index);
    return await realpath(dir);
  } catch {
    throw new Error(`The built renderer is missing: ${index} does not exist. Run \`npm run build\` first.`);
  }
}

/**
 * Whether `ws` still reaches a live page: it answers a ping while open. One that does not answer
 * in `waitMs` is cut off (its page is gone; its close would otherwise come minutes later).
 */
function socketAnswers(ws: WebSocket, waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (ws.readyState !== ws.OPEN) return resolve(false);
    const settle = (alive: boolean): void => {
      clearTimeout(timer);
      ws.off("pong", onPong);
      ws.off("close", onClose);
      if (!alive) ws.terminate();
      resolve(alive);
    };
    // A close frame the page sent before the pong is read first: the socket is then no longer open.
    const onPong = (): void => settle(ws.readyState === ws.OPEN);
    const onClose = (): void => settle(false);
    const timer = setTimeout(() => settle(false), waitMs);
    ws.on("pong", onPong);
    ws.on("close", onClose);
    try {
      ws.ping();
    } catch {
      settle(false);
    }
  });
}

function requestUrl(req: IncomingMessage): URL | undefined {
  const raw = req.url ?? "";
  if (!raw.startsWith("/")) return undefined;
  try {
    return new URL(raw, "http://lathe.invalid");
  } catch {
    return undefined;
  }
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...COMMON_HEADERS, "Content-Type": "text/plain; charset=utf-8" });
  res.end(`${body}\n`);
}

function refuseUpgrade(socket: Duplex, status: number, body: string): void {
  const text = `${body}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nConnection: close\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}
