import type { LatheApi } from "../shared/api-contract.ts";

declare global {
  interface Window {
    /** Set by the Electron preload; created from the WebSocket API under `lathe serve`. */
    lathe?: LatheApi;
  }
}
