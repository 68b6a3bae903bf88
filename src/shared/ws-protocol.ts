// How the API travels over `lathe serve`'s WebSocket: one JSON text frame per request, one per
// answer, matched by `id`, and pushes from the server as `{event, payload}` frames (no id). The
// payloads are the channels of api-contract.ts and the pushes of push-events.ts, unchanged.
import { z } from "zod";
import { ApiResultSchema } from "./api-contract.ts";
import { PushFrameSchema } from "./push-events.ts";

/** The WebSocket endpoint's path on the serve origin. */
export const WS_PATH = "/api";

/** The query parameter (page URL and WebSocket URL) that carries the access token. */
export const TOKEN_PARAM = "token";

/**
 * The largest request frame, in bytes, the server accepts; a larger one closes the socket (and
 * with it the UI's runs and prompts), so the client refuses to send one.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export const WsRequestSchema = z.strictObject({
  id: z.number().int().nonnegative(),
  channel: z.string(),
  payload: z.unknown().optional(),
});
export type WsRequest = z.output<typeof WsRequestSchema>;

export const WsResponseSchema = z.strictObject({
  id: z.number().int().nonnegative(),
  result: ApiResultSchema,
});
export type WsResponse = z.output<typeof WsResponseSchema>;

/** Anything the server sends: an answer to a request, or a push (validated further on arrival). */
export const WsServerFrameSchema = z.union([WsResponseSchema, PushFrameSchema]);
