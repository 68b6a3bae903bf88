/**
 * The names of the providers Lathe ships, for messages about a `--model` value before any
 * provider is loaded (this file stays free of imports: the CLI checks `--model` on every start).
 * `defaultProviderRegistry` registers exactly these (default-providers.test.ts keeps them equal).
 */
export const BUILTIN_PROVIDER_NAMES: readonly string[] = [
  "anthropic",
  "gguf",
  "llamacpp",
  "lmstudio",
  "ollama",
  "openai",
  "openai-compatible",
  "vllm",
];
