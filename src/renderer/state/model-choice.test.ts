import { describe, expect, it } from "vitest";
import type { ModelCatalog } from "../../shared/model-catalog-schemas.ts";
import { catalogModels, formatBytes, formatTokens, matchesFilter, modelEntry } from "./model-choice.ts";
import { initialModel } from "./chat-store.ts";

const catalog: ModelCatalog = {
  local: [
    {
      provider: "ollama",
      label: "Ollama",
      baseURL: "http://127.0.0.1:11434/v1",
      configured: false,
      state: "running",
      models: [{ id: "ollama:qwen2.5-coder:7b", name: "qwen2.5-coder:7b", contextTokens: 32_768 }],
    },
    {
      provider: "vllm",
      label: "vLLM",
      baseURL: "http://127.0.0.1:8000/v1",
      configured: false,
      state: "stopped",
      models: [],
      message: "vLLM is not running",
    },
  ],
  gguf: {
    folder: "/h/models",
    files: [
      {
        id: "gguf:/h/models/a.gguf",
        path: "/h/models/a.gguf",
        name: "a.gguf",
        bytes: 10,
        contextTokens: 4096,
      },
      { id: "gguf:/h/models/b.gguf", path: "/h/models/b.gguf", name: "b.gguf", bytes: 10, problem: "broken" },
    ],
  },
  cloud: [
    {
      provider: "anthropic",
      label: "Anthropic",
      keyVariable: "ANTHROPIC_API_KEY",
      keySet: false,
      models: [],
    },
  ],
  notices: [],
};

describe("the model picker's choices", () => {
  it("lists running servers' models and readable GGUF files, in that order", () => {
    expect(catalogModels(catalog).map((m) => [m.id, m.source])).toEqual([
      ["ollama:qwen2.5-coder:7b", "Ollama"],
      ["gguf:/h/models/a.gguf", "GGUF file"],
    ]);
  });

  it("starts a new chat with this folder's pick, else the settings' default, else the first running model", () => {
    expect(initialModel(catalog)).toBe("ollama:qwen2.5-coder:7b");
    expect(initialModel({ ...catalog, defaultModel: "openai:gpt-5" })).toBe("openai:gpt-5");
    expect(
      initialModel({ ...catalog, defaultModel: "openai:gpt-5", projectModel: "gguf:/h/models/a.gguf" }),
    ).toBe("gguf:/h/models/a.gguf");
    expect(initialModel({ ...catalog, local: [] })).toBe("");
  });

  it("knows a picked model's context size, and names one typed by hand by its provider", () => {
    expect(modelEntry(catalog, "gguf:/h/models/a.gguf")?.contextTokens).toBe(4096);
    expect(modelEntry(catalog, "lmstudio:phi-4")).toEqual({
      id: "lmstudio:phi-4",
      name: "phi-4",
      source: "lmstudio",
    });
    expect(modelEntry(catalog, "")).toBeUndefined();
  });

  it.each([
    [950, "950"],
    [12_345, "12.3k"],
    [32_768, "32.8k"],
    [131_072, "131k"],
    [1_047_576, "1.05M"],
  ])("writes %d tokens as %s", (tokens, text) => {
    expect(formatTokens(tokens)).toBe(text);
  });

  it("writes sizes and filters by every word typed", () => {
    expect(formatBytes(4_800_000_000)).toBe("4.5 GB");
    const entry = catalogModels(catalog)[0]!;
    expect(matchesFilter(entry, "qwen ollama")).toBe(true);
    expect(matchesFilter(entry, "qwen lmstudio")).toBe(false);
  });
});
