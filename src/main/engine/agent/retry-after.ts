/** `retry-after-ms` (OpenAI's), else `Retry-After` as seconds or an HTTP date: milliseconds from `now`. */
function askedWaitMs(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers["retry-after-ms"]);
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers["retry-after"]?.trim();
  if (!value) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function duration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 180) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 180 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/**
 * What a user is told to do about a rate limit (HTTP 429): how long the server asks to wait
 * (its Retry-After), or to wait a while when it does not say, then to continue the session.
 */
export function rateLimitAdvice(headers: Record<string, string> | undefined, now = Date.now()): string {
  const ms = askedWaitMs(headers, now);
  const wait = ms === undefined ? "wait a while" : `it asks to wait ${duration(ms)} (Retry-After)`;
  return `The server limits how often it may be asked: ${wait}, then continue the session.`;
}
