import { ModelError } from "./model-error.ts";

/** A model as users name it: `PROVIDER:MODEL`, e.g. `ollama:llama3.1:8b` or `gguf:/models/q.gguf`. */
export interface ModelSpec {
  provider: string;
  /** Everything after the first colon (model names may hold colons themselves). */
  model: string;
}

const PROVIDER = /^[a-z][a-z0-9-]*$/;

/** Parse `PROVIDER:MODEL`; throws ModelError (`model_spec`) saying how to write it. */
export function parseModelSpec(text: string): ModelSpec {
  const value = text.trim();
  const colon = value.indexOf(":");
  const example = 'Write it as PROVIDER:MODEL, e.g. "ollama:llama3.2" or "lmstudio:qwen2.5-7b-instruct".';
  if (colon <= 0) {
    throw new ModelError("model_spec", `"${text}" does not name a provider. ${example}`);
  }
  const provider = value.slice(0, colon);
  const model = value.slice(colon + 1).trim();
  if (!PROVIDER.test(provider)) {
    throw new ModelError(
      "model_spec",
      `"${provider}" is not a provider name (use lower-case letters, digits and "-"). ${example}`,
    );
  }
  if (model === "")
    throw new ModelError("model_spec", `"${text}" names no model after "${provider}:". ${example}`);
  return { provider, model };
}

export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.model}`;
}
