import { ModelError } from "./model-error.ts";

/** What a stalled call was waiting for: the answer to start, or the rest of it. */
export type StallKind = "first-byte" | "idle";

export interface StallDetails {
  kind: StallKind;
  /** The limit that passed, in milliseconds. */
  timeoutMs: number;
  /** Who was silent, for the message: "Ollama at http://127.0.0.1:11434". */
  endpoint: string;
  /** The model's name. */
  model: string;
  /** The settings entry that holds the limit: "providers.ollama". */
  settingsKey: string;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function describe(d: StallDetails): string {
  const field = d.kind === "first-byte" ? "firstByteMs" : "idleMs";
  const setting = `${d.settingsKey}.timeouts.${field} in settings (now ${d.timeoutMs})`;
  return d.kind === "first-byte"
    ? `${d.endpoint} sent nothing for ${seconds(d.timeoutMs)} after the request for ${d.model}: it never started answering. A model that is still loading or a busy machine can need longer: raise ${setting}; otherwise check the server.`
    : `${d.endpoint} stopped in the middle of ${d.model}'s answer: nothing more for ${seconds(d.timeoutMs)}. If the model is only slow, raise ${setting}; otherwise check the server.`;
}

/**
 * A model call that went silent for longer than its timeout: the step fails with a message that
 * names the endpoint, what it was waiting for, and the setting that changes the limit.
 */
export class ModelStallError extends ModelError {
  readonly details: StallDetails;

  constructor(details: StallDetails) {
    super("model_stalled", describe(details));
    this.details = details;
  }

  static isModelStall(value: unknown): value is ModelStallError {
    return ModelError.isModelError(value) && value.code === "model_stalled";
  }
}
