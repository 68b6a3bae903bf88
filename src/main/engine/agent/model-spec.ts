import { BUILTIN_PROVIDER_NAMES } from "./builtin-provider-names.ts";
import { ModelError } from "./model-error.ts";

/** A model as users name it: `PROVIDER:MODEL`, e.g. `ollama:llama3.1:8b` or `gguf:/models/q.gguf`. */
export interface ModelSpec {
  provider: string;
  /** Everything after the first colon (model names may hold colons themselves). */
  model: string;
}

const PROVIDER = /^[a-z][a-z0-9-]*$/;
const EXAMPLE = 'Write it as PROVIDER:MODEL, e.g. "ollama:llama3.2" or "lmstudio:qwen2.5-7b-instruct".';

/** How a model of `provider` is written: `gguf:<file.gguf>`, `ollama:<model>`. */
function shape(provider: string): string {
  return provider === "gguf" ? "gguf:<file.gguf> (the path to the model file)" : `${provider}:<model>`;
}

/**
 * Parse `PROVIDER:MODEL`; throws ModelError (`model_spec`) saying how to write it. `providers`
 * are the names a provider may have (default: the built-in ones), so that a provider given
 * alone (`gguf`) or in capitals (`GGUF:…`) is recognised and the right form shown.
 */
export function parseModelSpec(
  text: string,
  providers: readonly string[] = BUILTIN_PROVIDER_NAMES,
): ModelSpec {
  const value = text.trim();
  const colon = value.indexOf(":");
  const known = (name: string): string | undefined => {
    const lower = name.toLowerCase();
    return providers.includes(lower) ? lower : undefined;
  };
  if (colon <= 0) {
    const alone = known(value);
    if (alone !== undefined) {
      throw new ModelError(
        "model_spec",
        `"${text}" names the provider "${alone}" but no model: the ":MODEL" part is missing. Write ${shape(alone)}.`,
      );
    }
    throw new ModelError("model_spec", `"${text}" does not name a provider. ${EXAMPLE}`);
  }
  const provider = value.slice(0, colon);
  const model = value.slice(colon + 1).trim();
  if (!PROVIDER.test(provider)) {
    const lower = known(provider);
    if (lower !== undefined) {
      throw new ModelError(
        "model_spec",
        `"${provider}" is not a provider name: provider names are lower-case. Write "${lower}:${model}".`,
      );
    }
    throw new ModelError(
      "model_spec",
      `"${provider}" is not a provider name (use lower-case letters, digits and "-"). ${EXAMPLE}`,
    );
  }
  if (model === "") {
    const hint = known(provider) !== undefined ? ` Write ${shape(provider)}.` : ` ${EXAMPLE}`;
    throw new ModelError("model_spec", `"${text}" names no model after "${provider}:".${hint}`);
  }
  return { provider, model };
}

export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.model}`;
}
