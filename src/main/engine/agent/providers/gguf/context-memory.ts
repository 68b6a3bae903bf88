import type { LlamaModel } from "node-llama-cpp";
import { ModelError } from "../../model-error.ts";

/** The memory a context of `contextSize` tokens on `model` takes (node-llama-cpp's estimate, bytes). */
type ContextEstimate = (contextSize: number) => number;

function estimator(model: LlamaModel, sequences: number): ContextEstimate {
  // node-llama-cpp's own check first builds the context in a simulation, which for a context far
  // beyond the machine's memory allocates until the OS kills the process. Its arithmetic estimate
  // (deprecated for the simulation, not removed) costs nothing and never allocates.
  return (contextSize) =>
    model.fileInsights.estimateContextResourceRequirements({
      contextSize,
      sequences,
      modelGpuLayers: model.gpuLayers,
    }).cpuRam;
}

/** The largest context (a multiple of 256 tokens, at least 256) that fits in `free` bytes, or 0. */
function largestFitting(estimate: ContextEstimate, upTo: number, free: number): number {
  const STEP = 256;
  if (estimate(STEP) > free) return 0;
  let low = 1; // in steps: fits
  let high = Math.floor(upTo / STEP); // in steps: does not fit
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (estimate(middle * STEP) <= free) low = middle;
    else high = middle;
  }
  return low * STEP;
}

function size(bytes: number): string {
  const gb = bytes / 1024 ** 3;
  if (gb >= 10) return `${Math.round(gb)} GB`;
  if (gb >= 1) return `${gb.toFixed(1)} GB`;
  return `${Math.max(1, Math.round(bytes / 1024 ** 2))} MB`;
}

/**
 * Refuses, before llama.cpp is asked, a context that cannot fit in the memory free now: a
 * ModelError (`model_config`) that names the largest context size that would. `free` is the
 * free memory in bytes (os.freemem()).
 */
export function assertContextFits(
  model: LlamaModel,
  options: { contextSize: number; sequences: number; free: number },
): void {
  const { contextSize, sequences, free } = options;
  const estimate = estimator(model, sequences);
  const needed = estimate(contextSize);
  if (needed <= free) return;
  const fitting = largestFitting(estimate, contextSize, free);
  const trained = model.trainContextSize;
  const advice =
    fitting > 0
      ? `set LATHE_GGUF_CONTEXT_SIZE to at most ${fitting}${fitting > trained ? ` (this model was trained for ${trained})` : ""}, or close other programs`
      : "close other programs or pick a smaller model";
  throw new ModelError(
    "model_config",
    `A context of ${contextSize} tokens${sequences > 1 ? ` for ${sequences} runs at once` : ""} needs about ${size(needed)} of memory on this model, and ${size(free)} is free: ${advice}.`,
  );
}
