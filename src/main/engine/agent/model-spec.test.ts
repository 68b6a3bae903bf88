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
    ["llama3.2", "does not name a provider", "PROVIDER:MODEL"],
    [":llama3.2", "does not name a provider", "PROVIDER:MODEL"],
    ["ollama:", 'names no model after "ollama:"', "Write ollama:<model>."],
    ["ollama:   ", "names no model", "Write ollama:<model>."],
    ["gguf:", "names no model", "Write gguf:<file.gguf>"],
    ["acme:", "names no model", "PROVIDER:MODEL"],
    ["Acme:llama", "is not a provider name", "PROVIDER:MODEL"],
    ["ol lama:x", "is not a provider name", "PROVIDER:MODEL"],
    ["", "does not name a provider", "PROVIDER:MODEL"],
    // A provider alone: the model part is what is missing, not the provider.
    [
      "gguf",
      'names the provider "gguf" but no model: the ":MODEL" part is missing',
      "Write gguf:<file.gguf>",
    ],
    ["ollama", 'names the provider "ollama" but no model', "Write ollama:<model>."],
    ["  GGUF ", 'names the provider "gguf" but no model', "Write gguf:<file.gguf>"],
    // A provider in capitals: the lower-case name is shown, with the model as given.
    ["GGUF:/m/tiny.gguf", "provider names are lower-case", 'Write "gguf:/m/tiny.gguf".'],
    ["Ollama:llama3.1:8b", "provider names are lower-case", 'Write "ollama:llama3.1:8b".'],
  ])("refuses %j and says how to write it", (text, says, how) => {
    let error: unknown;
    try {
      parseModelSpec(text);
    } catch (err) {
      error = err;
    }
    expect(ModelError.isModelError(error)).toBe(true);
    expect((error as ModelError).code).toBe("model_spec");
    expect((error as Error).message).toContain(says);
    expect((error as Error).message).toContain(how);
  });

  it("knows the providers it is given: a host's own provider alone is recognised too", () => {
    expect(() => parseModelSpec("acme", ["acme"])).toThrow('names the provider "acme" but no model');
    expect(() => parseModelSpec("gguf", ["acme"])).toThrow('"gguf" does not name a provider');
  });
});
