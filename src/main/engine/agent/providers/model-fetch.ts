import type { ModelTimeoutsSettings } from "../../config/lathe-settings.ts";

/**
 * How long Node's fetch waits for an answer's headers, and between two pieces of its body, before
 * it fails with a bare "fetch failed" (undici's `headersTimeout` and `bodyTimeout`, 300 s).
 */
export const NODE_FETCH_LIMIT_MS = 300_000;

/**
 * The fetch a provider's model calls go through. Lathe's own watchdog (`timeouts.firstByteMs`,
 * `timeouts.idleMs`) decides when a silent model has failed, and says which setting to raise.
 * Node's fetch would cut a call at 300 s first, so where settings allow a longer silence (a large
 * prompt read on a slow machine before the first word), calls go through undici's fetch with no
 * limit of its own. It is loaded only then: below the limit, Node's fetch serves, at no cost.
 */
export function modelFetch(timeouts: ModelTimeoutsSettings | undefined): typeof fetch {
  const longest = Math.max(timeouts?.firstByteMs ?? 0, timeouts?.idleMs ?? 0);
  if (longest < NODE_FETCH_LIMIT_MS) return (input, init) => fetch(input, init);
  let unlimited: Promise<typeof fetch> | undefined;
  return async (input, init) => {
    unlimited ??= import("undici").then(({ Agent, fetch: undiciFetch }) => {
      const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
      // undici's own fetch with its own dispatcher: one version of both, whatever Node bundles.
      return ((target: Parameters<typeof fetch>[0], options?: RequestInit) =>
        undiciFetch(target as Parameters<typeof undiciFetch>[0], {
          ...(options as Parameters<typeof undiciFetch>[1]),
          dispatcher,
        })) as unknown as typeof fetch;
    });
    return (await unlimited)(input, init);
  };
}
