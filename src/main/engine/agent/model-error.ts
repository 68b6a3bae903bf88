import { LatheError } from "../errors/lathe-error.ts";

/**
 * Why a model cannot be used: `model_spec` (the name is malformed or names no provider: a usage
 * error), `model_config` (a key or base URL is missing, or a setting such as the embedded model's
 * context size is too small), `model_unavailable` (nothing answers at the endpoint, or it does
 * not serve the model), `model_stalled` (it went silent past a timeout, see ModelStallError),
 * `model_output_limit` (its answer was cut off at a length limit, see ModelOutputLimitError),
 * `model_context_full` (the conversation no longer fits the model's context: resuming the session
 * as it is fails the same way). The message says what to do about it.
 */
type ModelErrorCode =
  | "model_spec"
  | "model_config"
  | "model_unavailable"
  | "model_stalled"
  | "model_output_limit"
  | "model_context_full";

export class ModelError extends LatheError {
  declare readonly code: ModelErrorCode;

  constructor(code: ModelErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }

  static isModelError(value: unknown): value is ModelError {
    return LatheError.isInstance(value) && value.code.startsWith("model_");
  }
}
