import type { RawData, WebSocket } from "ws";
import type { PushFrame } from "../../shared/push-events.ts";
import { WsRequestSchema, type WsRequest, type WsResponse } from "../../shared/ws-protocol.ts";
import type { ApiRouter } from "../api/api-router.ts";
import { logServeError } from "./serve-log.ts";

/** Close codes (RFC 6455) used when a client breaks the framing. */
const UNSUPPORTED_DATA = 1003;
const POLICY_VIOLATION = 1008;

/**
 * Requests of one socket handled at once; the rest wait their turn, in order. Generous: a request
 * can stay open long (a call waiting for its approval, a long command), and the request that
 * would end it (the approval's answer) must never queue behind a full house of them.
 */
const MAX_IN_FLIGHT = 256;
/** Bytes waiting to go out to a page above which its requests wait: it is not reading its answers. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** How often a held-back socket's outgoing bytes are looked at again (nothing signals their draining here). */
const DRAIN_POLL_MS = 20;

/**
 * Serve the API on one accepted WebSocket: each text frame `{id, channel, payload}` goes through
 * the router and is answered with `{id, result}`. A frame that is not that shape closes the socket,
 * since there is no request id to answer it with. A page that sends faster than it is answered,
 * or stops reading its answers, is held back (its socket is not read meanwhile) instead of
 * having its answers pile up in memory and its work crowd out the other pages.
 */
export function serveApiSocket(ws: WebSocket, router: ApiRouter): void {
  const queue: WsRequest[] = [];
  let inFlight = 0;
  let recheck: NodeJS.Timeout | undefined;
  const blocked = (): boolean => inFlight >= MAX_IN_FLIGHT || ws.bufferedAmount > HIGH_WATER_BYTES;

  const pump = (): void => {
    if (ws.readyState !== ws.OPEN) return;
    while (queue.length > 0 && !blocked()) answer(queue.shift() as WsRequest);
    if (!blocked()) {
      if (ws.isPaused) ws.resume();
      return;
    }
    if (!ws.isPaused) ws.pause();
    if (ws.bufferedAmount > HIGH_WATER_BYTES && recheck === undefined) {
      recheck = setTimeout(() => {
        recheck = undefined;
        pump();
      }, DRAIN_POLL_MS);
    }
  };

  const answer = ({ id, channel, payload }: WsRequest): void => {
    inFlight++;
    router
      .dispatch(channel, payload)
      .then((result) => {
        if (ws.readyState !== ws.OPEN) return;
        const answer: WsResponse = { id, result };
        ws.send(JSON.stringify(answer));
      })
      .catch((error: unknown) => logServeError(`could not answer ${channel}`, error))
      .finally(() => {
        inFlight--;
        pump();
      });
  };

  ws.on("close", () => {
    clearTimeout(recheck);
    queue.length = 0;
  });
  ws.on("message", (data: RawData, isBinary: boolean) => {
    if (isBinary) {
      ws.close(UNSUPPORTED_DATA, "send JSON text frames");
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(rawText(data));
    } catch {
      ws.close(POLICY_VIOLATION, "each frame must be one JSON object {id, channel, payload}");
      return;
    }
    const parsed = WsRequestSchema.safeParse(frame);
    if (!parsed.success) {
      ws.close(POLICY_VIOLATION, "each frame must be one JSON object {id, channel, payload}");
      return;
    }
    // Frames read before a pause took hold wait here too.
    queue.push(parsed.data);
    pump();
  });
  ws.on("error", (error) => logServeError("WebSocket error", error));
}

/** Send pushes to one socket as `{event, payload}` text frames; throws once the socket is not open. */
export function socketPushSender(ws: WebSocket): (frame: PushFrame) => void {
  return (frame) => {
    if (ws.readyState !== ws.OPEN) throw new Error("the WebSocket is no longer open");
    ws.send(JSON.stringify(frame));
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
