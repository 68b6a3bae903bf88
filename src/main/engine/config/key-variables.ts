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

/** Whether a variable holds one of Lathe's own keys (above). */
export function isLatheKeyVariable(name: string): boolean {
  return NAMES.has(name);
}
