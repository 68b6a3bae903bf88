/**
 * What fetch's HTTP parser said when the program that answered on the address does not speak
 * HTTP (an SSH server, a database, another program on the port): fetch itself says only
 * "fetch failed". Undefined when the failure is not that one. Walks the `cause` chain.
 */
export function notHttpAnswer(error: unknown, depth = 0): string | undefined {
  if (depth > 8 || typeof error !== "object" || error === null) return undefined;
  if ((error as { name?: unknown }).name === "HTTPParserError") {
    const message = (error as { message?: unknown }).message;
    return typeof message === "string" && message !== "" ? message : "HTTPParserError";
  }
  return notHttpAnswer((error as { cause?: unknown }).cause, depth + 1);
}
