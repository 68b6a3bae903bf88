import {
  CHANNELS,
  clientPath,
  type ApiResult,
  type Channel,
  type LatheApi,
  type RequestOf,
  type ResponseOf,
} from "./api-contract.ts";
import { errorMessage } from "./error-message.ts";
import type { PushEvent, PushOf } from "./push-events.ts";

/** A transport: send one request on a channel and resolve to the wrapped answer (never reject). */
export type Invoke = <C extends Channel>(
  channel: C,
  request: RequestOf<C>,
) => Promise<ApiResult<ResponseOf<C>>>;

/** A transport's pushes: listen to one event (payloads already validated); returns the unsubscribe. */
export type Subscribe = <E extends PushEvent>(event: E, listener: (payload: PushOf<E>) => void) => () => void;

/** Build the `LatheApi` over a transport: IPC in the preload, a WebSocket in a plain browser. */
export function createLatheApi(invoke: Invoke, subscribe: Subscribe): LatheApi {
  const groups: Record<string, Record<string, (request?: unknown) => Promise<unknown>>> = {};
  for (const channel of CHANNELS) {
    const [group, method] = clientPath(channel);
    (groups[group] ??= {})[method] = (request) => invoke(channel, request as RequestOf<typeof channel>);
  }
  const on: LatheApi["on"] = (event, listener) => subscribe(event, listener);
  // The shape LatheApi derives from the same table (create-lathe-api.test.ts walks both).
  return { ...groups, on } as unknown as LatheApi;
}

/** Turn whatever a transport threw into the API's failure shape. */
export function transportFailure(what: string, error: unknown): ApiResult<never> {
  return { ok: false, error: { message: `${what}: ${errorMessage(error)}` } };
}
