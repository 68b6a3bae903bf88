import { CLOUD_PROVIDERS } from "./providers/cloud-provider.ts";
import { ggufProvider } from "./providers/gguf/gguf-provider.ts";
import {
  OPENAI_COMPATIBLE_PRESETS,
  openAICompatibleProvider,
} from "./providers/openai-compatible-provider.ts";
import { ProviderRegistry } from "./provider-registry.ts";

/**
 * The providers Lathe ships: a GGUF file run in-process (`gguf:<path>`), the local
 * OpenAI-compatible servers, then the cloud ones.
 */
export function defaultProviderRegistry(): ProviderRegistry {
  const registry = new ProviderRegistry();
  registry.register(ggufProvider());
  for (const preset of OPENAI_COMPATIBLE_PRESETS) registry.register(openAICompatibleProvider(preset));
  for (const provider of CLOUD_PROVIDERS) registry.register(provider);
  return registry;
}
