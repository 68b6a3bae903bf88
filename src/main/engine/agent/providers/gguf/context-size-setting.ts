import { ModelError } from "../../model-error.ts";

/** The variable that sets the embedded model's context size. */
export const CONTEXT_SIZE_VARIABLE = "LATHE_GGUF_CONTEXT_SIZE";
/** The smallest context llama.cpp makes: it makes contexts of whole blocks of this many tokens. */
export const CONTEXT_BLOCK = 256;
/** The largest a context size can be written (llama.cpp keeps it in a 32-bit signed number). */
const MOST = 2 ** 31 - 1;

const RANGE = `a whole number of tokens from ${CONTEXT_BLOCK} to ${MOST}, in digits (e.g. ${CONTEXT_SIZE_VARIABLE}=8192)`;

/** The context size asked for, and why it differs from what was written (a value raised to the least). */
export interface ContextSizeSetting {
  contextSize: number;
  notice?: string;
}

/**
 * `LATHE_GGUF_CONTEXT_SIZE` as written: digits only (`1e9`, `-5`, `1.5`, `abc` are refused with
 * a ModelError that says what to set); a value below the smallest context llama.cpp makes is
 * raised to it, with a notice that says so.
 */
export function parseContextSize(text: string): ContextSizeSetting {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > MOST) {
    throw new ModelError(
      "model_config",
      `${CONTEXT_SIZE_VARIABLE} is "${text}", which is not a context size: set it to ${RANGE}, or unset it to use the model's own (at most 8192).`,
    );
  }
  if (value >= CONTEXT_BLOCK) return { contextSize: value };
  return {
    contextSize: CONTEXT_BLOCK,
    notice: `${CONTEXT_SIZE_VARIABLE}=${text} is below ${CONTEXT_BLOCK}, the smallest context llama.cpp makes, so it was raised to ${CONTEXT_BLOCK} tokens. It takes ${RANGE}.`,
  };
}
