import type { ApiResult, Channel, LatheApi, RequestOf, ResponseOf } from "./api-contract.ts";

/** A transport: send one request on a channel and resolve to the wrapped answer (never reject). */
export type Invoke = <C extends Channel>(
  channel: C,
  request: RequestOf<C>,
) => Promise<ApiResult<ResponseOf<C>>>;

/** Build the `LatheApi` over a transport: IPC in the preload, a WebSocket in a plain browser. */
export function createLatheApi(invoke: Invoke): LatheApi {
  return {
    tools: {
      list: () => invoke("tools.list", undefined),
      call: (request) => invoke("tools.call", request),
    },
  };
}

/** Turn whatever a transport threw into the API's failure shape. */
export function transportFailure(what: string, error: unknown): ApiResult<never> {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { message: `${what}: ${message}` } };
}
