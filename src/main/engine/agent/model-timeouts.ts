import type { ModelTimeoutsSettings } from "../config/lathe-settings.ts";

/** How long a model call may stay silent, resolved from settings and the provider's defaults. */
export interface ModelTimeouts {
  /** From sending the request to the first output of the answer. */
  firstByteMs: number;
  /** Between two pieces of output once the answer has started. */
  idleMs: number;
}

/** For servers and cloud APIs: two minutes to start answering, one minute of silence mid-answer. */
export const DEFAULT_MODEL_TIMEOUTS: ModelTimeouts = { firstByteMs: 120_000, idleMs: 60_000 };

/** The embedded runner may first load a large file and read a long prompt on the CPU. */
export const GGUF_MODEL_TIMEOUTS: ModelTimeouts = { firstByteMs: 600_000, idleMs: 60_000 };

/** The provider's defaults with what settings change. */
export function resolveModelTimeouts(
  defaults: ModelTimeouts,
  configured: ModelTimeoutsSettings | undefined,
): ModelTimeouts {
  return {
    firstByteMs: configured?.firstByteMs ?? defaults.firstByteMs,
    idleMs: configured?.idleMs ?? defaults.idleMs,
  };
}
