import type { RawData, WebSocket } from "ws";
import type { PushFrame } from "../../shared/push-events.ts";
import { WsRequestSchema, type WsResponse } from "../../shared/ws-protocol.ts";
import type { ApiRouter } from "../api/api-router.ts";
import { logServeError } from "./serve-log.ts";

/** Close codes (RFC 6455) used when a client breaks the framing. */
const UNSUPPORTED_DATA = 1003;
const POLICY_VIOLATION = 1008;

/**
 * Serve the API on one accepted WebSocket: each text frame `{id, channel, payload}` goes through
 * the router and is answered with `{id, result}`. A frame that is not that shape closes the socket,
 * since there is no request id to answer it with.
 */
export function serveApiSocket(ws: WebSocket, router: ApiRouter): void {
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
    const { id, channel, payload } = parsed.data;
    router
      .dispatch(channel, payload)
      .then((result) => {
        if (ws.readyState !== ws.OPEN) return;
        const answer: WsResponse = { id, result };
        ws.send(JSON.stringify(answer));
      })
      .catch((error: unknown) => logServeError(`could not answer ${channel}`, error));
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
