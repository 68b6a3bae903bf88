import { z } from "zod";
import {
  channels,
  isChannel,
  type ApiResult,
  type Channel,
  type RequestOf,
  type ResponseOf,
} from "../../shared/api-contract.ts";
import { ApiError } from "./api-error.ts";
import { errorMessage } from "../engine/light.ts";

/** One handler per channel; it receives a request already validated against the channel's schema. */
export type ApiHandlers = {
  [C in Channel]: (
    request: z.output<(typeof channels)[C]["request"]>,
  ) => Promise<ResponseOf<C>> | ResponseOf<C>;
};

export interface ApiRouterOptions {
  /** Told about handler failures (host bugs, not bad requests) so they are logged, never lost. */
  onHandlerError?(channel: Channel, error: unknown): void;
}

function failure(message: string): ApiResult<never> {
  return { ok: false, error: { message } };
}

/**
 * The one dispatcher behind every transport (IPC, WebSocket): it checks the channel name,
 * validates the request with the channel's zod schema, runs the handler and wraps the answer as
 * `{ok: true, data} | {ok: false, error: {message}}`. It never throws.
 */
export class ApiRouter {
  private readonly handlers: ApiHandlers;
  private readonly options: ApiRouterOptions;

  constructor(handlers: ApiHandlers, options: ApiRouterOptions = {}) {
    this.handlers = handlers;
    this.options = options;
  }

  async dispatch<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ApiResult<ResponseOf<C>>>;
  async dispatch(channel: unknown, request: unknown): Promise<ApiResult<unknown>>;
  async dispatch(channel: unknown, request: unknown): Promise<ApiResult<unknown>> {
    if (!isChannel(channel)) {
      const known = Object.keys(channels).join(", ");
      return failure(`Unknown channel ${JSON.stringify(channel)}. The API has: ${known}.`);
    }
    const parsed = channels[channel].request.safeParse(request);
    if (!parsed.success) {
      return failure(`Invalid request for ${channel}: ${z.prettifyError(parsed.error)}`);
    }
    try {
      const handler = this.handlers[channel] as (request: unknown) => unknown;
      return { ok: true, data: await handler(parsed.data) };
    } catch (error) {
      if (error instanceof ApiError) return failure(error.message);
      this.options.onHandlerError?.(channel, error);
      const message = errorMessage(error);
      return failure(`${channel} failed: ${message}`);
    }
  }
}
