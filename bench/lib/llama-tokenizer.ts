// A real tokenizer to cross-check the chars/4 estimate: the Llama-2 vocabulary (32,000
// SentencePiece tokens) inside the tiny test model in ../shared/models, loaded through
// node-llama-cpp. Its weights are random, its tokenizer is Llama 2's.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LlamaRuntime } from "../../src/main/engine/agent/providers/gguf/llama-runtime.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
export const TINY_MODEL = path.join(here, "..", "..", "..", "shared", "models", "llama-2-tiny-random.gguf");

/** Count tokens with the Llama-2 tokenizer, or undefined (with why) when the model file is absent. */
export async function llamaTokenCounter(): Promise<
  { count(text: string): number; dispose(): Promise<void> } | { missing: string }
> {
  if (!existsSync(TINY_MODEL)) return { missing: `${TINY_MODEL} is missing` };
  const runtime = new LlamaRuntime({ maxThreads: 1 });
  const model = await runtime.model(TINY_MODEL);
  return {
    count: (text) => model.tokenize(text).length,
    dispose: () => runtime.dispose(),
  };
}
