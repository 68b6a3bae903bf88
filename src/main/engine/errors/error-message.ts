/** What went wrong, in words: an error's message, or any other thrown value as text. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * An error's message with those of its causes, as far as they add something: "fetch failed:
 * getaddrinfo EAI_AGAIN host (EAI_AGAIN)" where `errorMessage` gives only "fetch failed".
 */
export function errorChain(thrown: unknown): string {
  const parts: string[] = [];
  let current: unknown = thrown;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const message = errorMessage(current);
    const code = (current as { code?: unknown }).code;
    const said = typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
    if (said !== "" && !parts.some((part) => part.includes(message))) parts.push(said);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ");
}
