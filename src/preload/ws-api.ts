// The same `LatheApi` as the preload, carried over `lathe serve`'s WebSocket instead of IPC —
// used when the renderer runs in a plain browser. Browser-safe: no Node or Electron imports.
import type { ApiResult, Channel, LatheApi } from "../shared/api-contract.ts";
import { createLatheApi, transportFailure, type Invoke, type Subscribe } from "../shared/create-lathe-api.ts";
import { PushListeners } from "../shared/push-listeners.ts";
import { parseTabId, TAB_PARAM, TabAssignedSchema } from "../shared/tab-id.ts";
import {
  MAX_REQUEST_BYTES,
  TOKEN_PARAM,
  WS_PATH,
  WsServerFrameSchema,
  type WsRequest,
} from "../shared/ws-protocol.ts";

/** The part of the standard WebSocket this client uses (the browser's, or the `ws` package's). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

interface WsApiOptions {
  /** Opens a socket; defaults to the global `WebSocket`. */
  connect?: (url: string) => WebSocketLike;
  /** Told about pushes that break the contract (dropped); defaults to console.error. */
  onPushProblem?: (message: string, error?: unknown) => void;
  /**
   * Told when the open connection closes (with what to tell the person), and when a connection
   * opens again after that (undefined): pushes, such as a run's events, cannot arrive meanwhile.
   */
  onConnection?: (lost: string | undefined) => void;
  /**
   * Where the page keeps its tab id (see tab-id.ts; the page's sessionStorage): presented on
   * every connection, so a run this tab started is still its own after a reload or a reconnect,
   * and replaced by the one the server assigns.
   */
  tab?: TabIdStore;
}

/** The page's tab id, kept where a reload of the tab finds it. */
export interface TabIdStore {
  /** The id to present; undefined for a tab that has none yet. */
  presented(): string | undefined;
  /** The server said this tab goes by `tabId`: present it from now on. */
  assigned(tabId: string): void;
}

/** What the person is told when the connection to `lathe serve` closes. */
export const CONNECTION_LOST =
  "The connection to lathe serve closed: it stopped, or was restarted. Start it again and open the address it prints (a new lathe serve has a new token), or reload this page if it is still running.";

const OPEN = 1;

/** The WebSocket URL of the serve API for a page served by `lathe serve`, carrying the token. */
export function wsApiUrl(pageUrl: string, token: string): string {
  const url = new URL(WS_PATH, pageUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  url.searchParams.set(TOKEN_PARAM, token);
  return url.href;
}

/**
 * A `LatheApi` over one WebSocket, opened on the first call or subscription and reopened after it
 * drops. Every failure (cannot connect, connection lost, malformed answer) resolves as
 * `{ok: false}`. Pushes (frames without an id) are validated and handed to the subscribers.
 */
export function createWsApi(url: string, options: WsApiOptions = {}): LatheApi {
  const connect = options.connect ?? ((u: string) => new WebSocket(u) as WebSocketLike);
  const pending = new Map<number, (result: ApiResult<unknown>) => void>();
  const listeners = new PushListeners(options.onPushProblem);
  let nextId = 0;
  let socket: Promise<WebSocketLike> | undefined;
  let lost = false;

  function failAll(message: string): void {
    for (const resolve of pending.values()) resolve({ ok: false, error: { message } });
    pending.clear();
  }

  function open(): Promise<WebSocketLike> {
    return new Promise((resolve, reject) => {
      const ws = connect(withTab(url, options.tab?.presented()));
      let opened = false;
      ws.addEventListener("open", () => {
        opened = true;
        if (lost) {
          lost = false;
          options.onConnection?.(undefined);
        }
        resolve(ws);
      });
      ws.addEventListener("message", (event) => {
        const frame = typeof event.data === "string" ? safeJson(event.data) : undefined;
        const parsed = WsServerFrameSchema.safeParse(frame);
        if (!parsed.success) {
          failAll("lathe serve sent a malformed answer; reload the page.");
          ws.close(1002, "malformed answer");
          return;
        }
        if ("event" in parsed.data) {
          if (parsed.data.event === "tab.assigned") {
            const assigned = TabAssignedSchema.safeParse(parsed.data.payload);
            if (assigned.success) options.tab?.assigned(assigned.data.tabId);
          }
          listeners.deliver(parsed.data);
          return;
        }
        const waiting = pending.get(parsed.data.id);
        pending.delete(parsed.data.id);
        waiting?.(parsed.data.result as ApiResult<unknown>);
      });
      ws.addEventListener("close", () => {
        socket = undefined;
        if (!opened) {
          reject(
            new Error(
              `could not connect to ${redact(url)}; is \`lathe serve\` still running, and is the token right?`,
            ),
          );
        } else {
          failAll(CONNECTION_LOST);
          lost = true;
          options.onConnection?.(CONNECTION_LOST);
        }
      });
      ws.addEventListener("error", () => {
        // A "close" event always follows and reports the failure.
      });
    });
  }

  async function send(channel: Channel, request: unknown): Promise<ApiResult<unknown>> {
    try {
      socket ??= open();
      const ws = await socket;
      if (ws.readyState !== OPEN) throw new Error("the connection is not open");
      const id = nextId++;
      const frame: WsRequest = { id, channel, payload: request };
      const text = JSON.stringify(frame);
      // The server would close the connection on it, ending this page's runs and prompts.
      // (A UTF-16 unit is at most 3 bytes of UTF-8: most requests need no counting.)
      const bytes = text.length * 3 <= MAX_REQUEST_BYTES ? 0 : new TextEncoder().encode(text).byteLength;
      if (bytes > MAX_REQUEST_BYTES) return { ok: false, error: { message: tooLarge(bytes) } };
      const answer = new Promise<ApiResult<unknown>>((resolve) => pending.set(id, resolve));
      ws.send(text);
      return await answer;
    } catch (error) {
      socket = undefined;
      // The person reads this: it says what failed in their words, not the channel's name.
      return transportFailure("No answer from lathe serve", error);
    }
  }

  // Pushes only arrive on an open socket, so listening opens it (a failure shows on the next call).
  const subscribe: Subscribe = (event, listener) => {
    if (!socket) {
      const opening = open();
      socket = opening;
      // The close handler already forgot this socket; the next call reports why it failed.
      opening.catch(() => undefined);
    }
    return listeners.add(event, listener);
  };

  // The server answers each channel with that channel's response type (see api-contract.ts).
  return createLatheApi(send as Invoke, subscribe);
}

/** `url` presenting tab id `tabId` (a malformed one is not presented: the server assigns a fresh one). */
function withTab(url: string, tabId: string | undefined): string {
  const checked = parseTabId(tabId);
  if (checked === undefined) return url;
  const u = new URL(url);
  u.searchParams.set(TAB_PARAM, checked);
  return u.href;
}

function tooLarge(bytes: number): string {
  const mb = (n: number) => Math.round((n / (1024 * 1024)) * 10) / 10;
  return `Not sent: this request is ${mb(bytes)} MB; lathe serve takes requests of at most ${mb(MAX_REQUEST_BYTES)} MB. Make it smaller and send it again.`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The URL without its query, so the token never appears in a message. */
function redact(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
