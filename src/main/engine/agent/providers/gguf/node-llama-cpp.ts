import type * as NodeLlamaCppModule from "node-llama-cpp";

export type NodeLlamaCpp = typeof NodeLlamaCppModule;

let loading: Promise<NodeLlamaCpp> | undefined;

/**
 * `CI` as node-llama-cpp's configuration accepts it ("true", "false", 1 or 0; anything else, an
 * empty value included, makes the module throw as it loads), read as Lathe reads it elsewhere:
 * empty is unset, 0 or false is false, any other value is true.
 */
function ciForNodeLlamaCpp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (word === "") return undefined;
  return word === "0" || word === "false" ? "false" : "true";
}

/**
 * Run `work` (loading node-llama-cpp, starting llama.cpp) with `CI` as node-llama-cpp accepts it,
 * then put it back. The module reads its settings from the environment as it loads and throws on
 * a `CI` that is not a boolean (`CI=` in a shell, `CI=woodpecker`), and so does the process it
 * starts to test its binary. A module that failed to load stays failed for as long as the process
 * lives: in the CLI's daemon, for every later command of every caller.
 */
export async function withNodeLlamaCppEnv<T>(work: () => Promise<T>): Promise<T> {
  const original = process.env.CI;
  const wanted = ciForNodeLlamaCpp(original);
  if (wanted === original) return work();
  if (wanted === undefined) delete process.env.CI;
  else process.env.CI = wanted;
  try {
    return await work();
  } finally {
    // Only if nothing else set it meanwhile.
    if (process.env.CI === wanted) {
      if (original === undefined) delete process.env.CI;
      else process.env.CI = original;
    }
  }
}

/** node-llama-cpp, loaded on first use (see withNodeLlamaCppEnv). */
export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  loading ??= withNodeLlamaCppEnv(() => import("node-llama-cpp"));
  return loading;
}
