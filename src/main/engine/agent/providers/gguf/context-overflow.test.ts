import { describe, expect, it } from "vitest";
import { ModelError } from "../../model-error.ts";
import { explainContextOverflow } from "./context-overflow.ts";

describe("a conversation that no longer fits the context", () => {
  const overflow = new Error(
    "Failed to compress chat history for context shift due to a too long prompt or system message that cannot be compressed without affecting the generation quality. Consider increasing the context size or shortening the long prompt or system message.",
  );

  it("says how large the context is and how to go on, keeping the original as the cause", () => {
    const explained = explainContextOverflow(overflow, 2048, 8192);
    expect(ModelError.isModelError(explained)).toBe(true);
    expect((explained as ModelError).message).toBe(
      "The conversation no longer fits the model's context of 2048 tokens: the system prompt, the tool definitions and the newest messages are longer than that together. To go on, set LATHE_GGUF_CONTEXT_SIZE above 2048 (this model takes up to 8192), start a new session, or use a model with a longer context.",
    );
    expect((explained as ModelError).cause).toBe(overflow);
  });

  it("does not suggest a larger context when the model takes no more", () => {
    const explained = explainContextOverflow(overflow, 4096, 4096) as ModelError;
    expect(explained.message).not.toContain("LATHE_GGUF_CONTEXT_SIZE");
    expect(explained.message).toContain("start a new session, or use a model with a longer context");
  });

  it.each<[number, number, string]>([
    [
      1,
      256,
      "256 tokens (LATHE_GGUF_CONTEXT_SIZE is 1; llama.cpp makes a context of whole blocks of 256 tokens, so it made 256)",
    ],
    [
      300,
      512,
      "512 tokens (LATHE_GGUF_CONTEXT_SIZE is 300; llama.cpp makes a context of whole blocks of 256 tokens, so it made 512)",
    ],
    [512, 512, "512 tokens:"],
  ])("with LATHE_GGUF_CONTEXT_SIZE=%d and a context of %d, names %j", (requested, used, said) => {
    const explained = explainContextOverflow(overflow, used, 4096, false, requested) as ModelError;
    expect(explained.message).toContain(`The conversation no longer fits the model's context of ${said}`);
    expect(explained.message).toContain(
      `set LATHE_GGUF_CONTEXT_SIZE above ${used} (this model takes up to 4096)`,
    );
  });

  it.each([
    ["another error", new Error("llama_decode failed")],
    ["an abort", new DOMException("aborted", "AbortError")],
    ["a value that is not an error", "Failed to compress chat history"],
  ])("leaves %s as it was", (_name, error) => {
    expect(explainContextOverflow(error, 1024, 4096)).toBe(error);
  });

  it("covers node-llama-cpp's other wording of the same failure", () => {
    const other = new Error(
      "Failed to compress chat history to fit context window. Try increasing the context size or shortening the system prompt",
    );
    expect(ModelError.isModelError(explainContextOverflow(other, 1024, 4096))).toBe(true);
  });
});
