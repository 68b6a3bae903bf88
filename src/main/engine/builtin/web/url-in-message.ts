/** The longest URL a message quotes whole; a Location header may hold a 100 KB data: URL. */
const QUOTED_URL_CHARS = 300;

/**
 * A URL as a message to the model quotes it: a password written into it replaced by "…" (a
 * redirect's Location may carry one, and it is nobody's business to read it back), and a long URL
 * cut with "…" and its length.
 */
export function urlInMessage(url: URL | string): string {
  let shown: string;
  if (typeof url === "string") shown = url;
  else if (url.password !== "")
    shown = `${url.protocol}//${url.username}:…@${url.host}${url.pathname}${url.search}${url.hash}`;
  else shown = url.href;
  return shown.length > QUOTED_URL_CHARS
    ? `${shown.slice(0, QUOTED_URL_CHARS)}… (${shown.length} characters)`
    : shown;
}
