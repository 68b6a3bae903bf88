// The engine's errorMessage (src/main/engine/errors/error-message.ts), for the code the renderer
// and the preload load, which imports nothing of the engine: src/shared/error-message.test.ts
// keeps the two equal.

/** What went wrong, in words: an error's message, or any other thrown value as text. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
