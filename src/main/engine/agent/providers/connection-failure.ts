/** Codes that mean the endpoint could not be reached at all. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Codes that mean a connection was made and then closed by the other side (a crash, a restart). */
const DROPPED_CODES = new Set(["ECONNRESET", "UND_ERR_SOCKET", "EPIPE"]);

const CONNECTION_CODES = new Set([...UNREACHABLE_CODES, ...DROPPED_CODES]);

/** Whether a connection failure code means the server went away after it answered the connection. */
export function isDroppedConnection(code: string): boolean {
  return DROPPED_CODES.has(code);
}

/**
 * The network error code behind a failed request (`ECONNREFUSED`, `ENOTFOUND`, …), found by
 * walking `cause` chains and aggregate errors; undefined when the failure is not a connection one.
 */
export function connectionFailure(error: unknown, depth = 0): string | undefined {
  if (depth > 8 || typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return code;
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const e of nested) {
      const found = connectionFailure(e, depth + 1);
      if (found) return found;
    }
  }
  return connectionFailure((error as { cause?: unknown }).cause, depth + 1);
}
