import { ModelError } from "../../model-error.ts";

/** How node-llama-cpp's chat says the conversation cannot be cut down to fit the context. */
const OVERFLOW = /^Failed to compress chat history\b/;

/**
 * A reply that failed because the conversation no longer fits the model's context, as a
 * ModelError that says what to do about it; any other failure is returned as it was.
 * `contextSize` is the context in use, `trainContextSize` the longest the model was trained for.
 */
export function explainContextOverflow(
  error: unknown,
  contextSize: number,
  trainContextSize: number,
): unknown {
  if (!(error instanceof Error) || !OVERFLOW.test(error.message)) return error;
  const larger =
    contextSize < trainContextSize
      ? `set LATHE_GGUF_CONTEXT_SIZE above ${contextSize} (this model takes up to ${trainContextSize}), `
      : "";
  return new ModelError(
    "model_context_full",
    `The conversation no longer fits the model's context of ${contextSize} tokens: the system prompt, the tool definitions and the newest messages are longer than that together. To go on, ${larger}start a new session, or use a model with a longer context.`,
    { cause: error },
  );
}
