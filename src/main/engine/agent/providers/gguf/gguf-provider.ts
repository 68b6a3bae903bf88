import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ModelError } from "../../model-error.ts";
import { GGUF_MODEL_TIMEOUTS } from "../../model-timeouts.ts";
import type { ProviderDefinition } from "../../provider-registry.ts";
import { createGgufModel, type GgufModelOptions } from "./gguf-language-model.ts";
import { ggufTrainedContext } from "../../models/gguf-folder.ts";
import { contextSizeFor, type LlamaRuntime } from "./llama-runtime.ts";
import { CONTEXT_SIZE_VARIABLE, parseContextSize } from "./context-size-setting.ts";

/** Environment variables that tune the embedded runner (there is no settings entry for it). */
const TUNING = {
  LATHE_GGUF_THREADS: "threads",
  LATHE_GGUF_MAX_STRING: "maxStringLength",
} as const;

type Tuning = Pick<GgufModelOptions, "contextSize" | "threads" | "maxStringLength">;

/** The tuning the environment sets, and what the run is told about how it was taken. */
function tuningFromEnv(env: NodeJS.ProcessEnv): { tuning: Tuning; notices: string[] } {
  const tuning: Tuning = {};
  const notices: string[] = [];
  for (const [variable, option] of Object.entries(TUNING)) {
    const text = env[variable]?.trim();
    if (!text) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      throw new ModelError(
        "model_config",
        `${variable} must be a whole number of at least 1, not "${text}".`,
      );
    }
    tuning[option] = value;
  }
  const contextText = env[CONTEXT_SIZE_VARIABLE]?.trim();
  if (contextText) {
    const { contextSize, notice } = parseContextSize(contextText);
    tuning.contextSize = contextSize;
    if (notice !== undefined) notices.push(notice);
  }
  return { tuning, notices };
}

/**
 * What a run is told once when `LATHE_GGUF_CONTEXT_SIZE` is larger than the model's trained
 * context: llama.cpp runs it (a model that declares RoPE scaling may even cope), but most models
 * write nonsense once a conversation grows past what they were trained on.
 */
function beyondTraining(file: string, contextSize: number, trained: number): string {
  return `LATHE_GGUF_CONTEXT_SIZE=${contextSize} is more than the ${trained} tokens ${file} was trained for: once the conversation grows past about ${trained} tokens, its answers may turn to nonsense. Set LATHE_GGUF_CONTEXT_SIZE to ${trained} or less, unless you know this model reaches further.`;
}

/** An address where a file belongs: a URL (`https://…`) or a Hugging Face reference (`hf:org/repo`). */
const ADDRESS = /^(?:([a-z][a-z0-9+.-]+:)\/\/|(hf:|huggingface:))/i;

/**
 * `~/x.gguf` under the home folder, a relative path against the current folder, a `file://` URL
 * as its path. Throws ModelError (`model_config`) for any other address: Lathe downloads no model.
 */
export function resolveGgufPath(model: string): string {
  if (/^file:\/\//i.test(model)) return fileURLToPath(model);
  const address = ADDRESS.exec(model);
  if (address) {
    throw new ModelError(
      "model_config",
      `"${model}" is an address (${(address[1] ?? address[2] ?? "").toLowerCase()}), not a file: gguf: runs a GGUF file on this machine, and Lathe downloads no model. Download the file first (into $LATHE_HOME/models, ~/.lathe/models by default, the model picker lists it), then write gguf:<the file's path>.`,
    );
  }
  const expanded = model === "~" || model.startsWith("~/") ? path.join(os.homedir(), model.slice(1)) : model;
  return path.resolve(expanded);
}

/**
 * The `gguf` provider for the registry: `gguf:<path>` runs that GGUF file in-process. The path
 * may be absolute, start with `~/`, or be relative to the current folder. `LATHE_GGUF_THREADS`,
 * `LATHE_GGUF_CONTEXT_SIZE` and `LATHE_GGUF_MAX_STRING` (the longest string a tool argument may
 * hold when the schema sets no maxLength) tune it.
 */
export function ggufProvider(options: { runtime?: LlamaRuntime } = {}): ProviderDefinition {
  return {
    name: "gguf",
    description: "A GGUF model file run in-process by llama.cpp, offline (gguf:/path/to/model.gguf)",
    defaultTimeouts: GGUF_MODEL_TIMEOUTS,
    async create(model, context) {
      const file = resolveGgufPath(model);
      const { tuning, notices } = tuningFromEnv(context.env);
      // The window the run plans for (tool deferral, compaction): known from the file's header
      // before the model loads; a header that cannot be read is met again, and explained, by the load.
      const trained = tuning.contextSize === undefined ? await ggufTrainedContext(file) : undefined;
      const contextTokens =
        tuning.contextSize ?? (trained === undefined ? undefined : contextSizeFor(trained, undefined));
      const languageModel = createGgufModel(file, {
        ...tuning,
        ...(options.runtime ? { runtime: options.runtime } : {}),
        modelId: model,
      });
      return {
        // By its absolute path: a session records it, and a resume from another folder (or the
        // app) resolves it again.
        spec: { provider: "gguf", model: file },
        model: languageModel,
        supportsTools: true,
        ...(contextTokens !== undefined ? { contextTokens } : {}),
        endpoint: `The embedded model ${file}`,
        acceptsImages: false,
        // The model loads and its context is made now, so a context too large for the memory
        // free is refused before the run starts (and leaves no session to resume).
        preflight: async (signal) => {
          const { contextSize, trainContextSize } = await languageModel.load(signal);
          const told =
            contextSize > trainContextSize
              ? [...notices, beyondTraining(file, contextSize, trainContextSize)]
              : notices;
          return told.length > 0 ? told : undefined;
        },
      };
    },
  };
}
