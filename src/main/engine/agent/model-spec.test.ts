import { describe, expect, it } from "vitest";
import { ModelError } from "./model-error.ts";
import { parseModelSpec } from "./model-spec.ts";

describe("PROVIDER:MODEL", () => {
  it.each([
    ["ollama:llama3.2", { provider: "ollama", model: "llama3.2" }],
    ["ollama:llama3.1:8b", { provider: "ollama", model: "llama3.1:8b" }],
    ["gguf:/models/tiny.gguf", { provider: "gguf", model: "/models/tiny.gguf" }],
    ["gguf:C:\\models\\tiny.gguf", { provider: "gguf", model: "C:\\models\\tiny.gguf" }],
    ["openai-compatible:org/model-7b", { provider: "openai-compatible", model: "org/model-7b" }],
    ["  lmstudio:qwen  ", { provider: "lmstudio", model: "qwen" }],
  ])("reads %j", (text, spec) => {
    expect(parseModelSpec(text)).toEqual(spec);
  });

  it.each([
    ["llama3.2", "does not name a provider"],
    [":llama3.2", "does not name a provider"],
    ["ollama:", "names no model"],
    ["ollama:   ", "names no model"],
    ["Ollama:llama", "is not a provider name"],
    ["ol lama:x", "is not a provider name"],
    ["", "does not name a provider"],
  ])("refuses %j and says how to write it", (text, says) => {
    let error: unknown;
    try {
      parseModelSpec(text);
    } catch (err) {
      error = err;
    }
    expect(ModelError.isModelError(error)).toBe(true);
    expect((error as ModelError).code).toBe("model_spec");
    expect((error as Error).message).toContain(says);
    expect((error as Error).message).toContain("PROVIDER:MODEL");
  });
});
