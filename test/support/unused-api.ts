import type { LatheApi } from "../../src/shared/api-contract.ts";
import { createLatheApi } from "../../src/shared/create-lathe-api.ts";

/**
 * A `LatheApi` whose every channel rejects, naming itself, and that delivers no pushes: a test
 * spreads it and replaces only the channels its store uses, so a channel added later needs no
 * change to every fake.
 */
export function unusedApi(): LatheApi {
  return createLatheApi(
    (channel) => Promise.reject(new Error(`${channel} is not part of this test`)),
    () => () => undefined,
  );
}
