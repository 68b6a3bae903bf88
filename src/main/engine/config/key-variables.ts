import type { Settings } from "./lathe-settings.ts";

/**
 * The environment variables Lathe reads its own keys from when settings name no other: the
 * cloud models' and the Brave search API's. Commands run for the model start without them
 * (pty-runner.ts), so a command a hostile file talked the model into cannot print, save or
 * send the key the conversation runs on.
 */
export const KEY_VARIABLES = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  brave: "BRAVE_API_KEY",
} as const;

const NAMES: ReadonlySet<string> = new Set(Object.values(KEY_VARIABLES));

/** Whether a variable holds one of Lathe's own keys by default (above). */
export function isLatheKeyVariable(name: string): boolean {
  return NAMES.has(name);
}

/**
 * The variables settings name as holding a key (`providers.<name>.apiKeyEnv`, a Brave search
 * provider's `apiKeyEnv`), beside the defaults: none of them reaches a command run for the model.
 */
export function keyVariablesOf(settings: readonly Settings[]): string[] {
  const names = new Set<string>(NAMES);
  for (const s of settings) {
    for (const endpoint of Object.values(s.providers))
      if (endpoint && "apiKeyEnv" in endpoint && endpoint.apiKeyEnv) names.add(endpoint.apiKeyEnv);
    for (const provider of s.web.search.providers)
      if (provider.type === "brave") names.add(provider.apiKeyEnv);
  }
  return [...names].sort();
}
