import type { ChatHistoryItem } from "node-llama-cpp";
import { ModelError } from "../../model-error.ts";
import { CONTEXT_BLOCK } from "./context-size-setting.ts";

/** How node-llama-cpp's chat says the conversation cannot be cut down to fit the context. */
const OVERFLOW = /^Failed to compress chat history\b/;

/** Why a call was stopped: the conversation (and the reply so far) no longer fit the context. */
class ContextShiftRefused extends Error {
  constructor() {
    super("The conversation no longer fits the context, and Lathe drops none of it silently.");
    this.name = "ContextShiftRefused";
  }
}

/**
 * A context-shift strategy for node-llama-cpp's chat that refuses to shift, and the signal it
 * aborts when asked (pass it to the generation). node-llama-cpp's own strategy, asked when the
 * conversation does not fit (or a reply fills what is left), drops the older turns without a
 * word: the user's request and the files read with it vanish from what the model sees. A
 * strategy's throw is not passed on (node-llama-cpp falls back to its own), so this one aborts the
 * generation, which checks its signal before it evaluates anything, and hands back an empty
 * history to satisfy the call. The call then fails as a server's would, and the run can
 * summarise the older conversation or say what to do.
 */
export function refusingContextShift(): {
  strategy: () => { chatHistory: ChatHistoryItem[] };
  signal: AbortSignal;
} {
  const refused = new AbortController();
  return {
    strategy: () => {
      refused.abort(new ContextShiftRefused());
      return { chatHistory: [] };
    },
    signal: refused.signal,
  };
}

/**
 * The context in use, said with what LATHE_GGUF_CONTEXT_SIZE asked when that differs:
 * "256 tokens (LATHE_GGUF_CONTEXT_SIZE is 1; llama.cpp makes a context of whole blocks of 256
 * tokens, so it made 256)".
 */
function contextShown(contextSize: number, requested: number | undefined): string {
  if (requested === undefined || requested === contextSize) return `${contextSize} tokens`;
  const why =
    contextSize === Math.ceil(requested / CONTEXT_BLOCK) * CONTEXT_BLOCK
      ? `llama.cpp makes a context of whole blocks of ${CONTEXT_BLOCK} tokens, so it made ${contextSize}`
      : `llama.cpp made ${contextSize}`;
  return `${contextSize} tokens (LATHE_GGUF_CONTEXT_SIZE is ${requested}; ${why})`;
}

/**
 * A reply that failed because the conversation no longer fits the model's context, as a
 * ModelError that says what to do about it; any other failure is returned as it was.
 * `contextSize` is the context in use, `trainContextSize` the longest the model was trained for,
 * `replyStarted` whether the model had written part of its reply when the context filled, and
 * `requested` the size LATHE_GGUF_CONTEXT_SIZE asked for, if it did.
 */
export function explainContextOverflow(
  error: unknown,
  contextSize: number,
  trainContextSize: number,
  replyStarted = false,
  requested?: number,
): unknown {
  if (!(error instanceof ContextShiftRefused) && !(error instanceof Error && OVERFLOW.test(error.message)))
    return error;
  const larger =
    contextSize < trainContextSize
      ? `set LATHE_GGUF_CONTEXT_SIZE above ${contextSize} (this model takes up to ${trainContextSize}), `
      : "";
  const context = contextShown(contextSize, requested);
  const what = replyStarted
    ? `The model's reply filled the rest of its context of ${context} before it was complete: the conversation and the reply no longer fit together.`
    : `The conversation no longer fits the model's context of ${context}: the system prompt, the tool definitions and the newest messages are longer than that together.`;
  return new ModelError(
    "model_context_full",
    `${what} To go on, ${larger}start a new session, or use a model with a longer context.`,
    { cause: error },
  );
}
