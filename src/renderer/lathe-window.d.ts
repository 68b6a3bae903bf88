import type { LatheApi } from "../shared/api-contract.ts";
import type { LatheDesktop } from "../shared/desktop-api.ts";

declare global {
  interface Window {
    /** Set by the Electron preload; created from the WebSocket API under `lathe serve`. */
    lathe?: LatheApi;
    /** Set by the Electron preload only: the system's folder picker. */
    latheDesktop?: LatheDesktop;
  }
}
