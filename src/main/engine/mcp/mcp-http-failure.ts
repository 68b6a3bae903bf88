/** Characters of a web server's answer quoted in a message (an error page can be long HTML). */
const QUOTED_CHARS = 300;

/**
 * The reason phrase of an HTTP status ("Not Found"), if it has one. node:http is taken here, when
 * a server has failed: imported at the top, it was loaded with the engine at every start (the
 * CLI bundle turns a named import of a Node module into a load where the chunk begins).
 */
function reasonPhrase(status: number): string | undefined {
  return process.getBuiltinModule("node:http").STATUS_CODES[status];
}

/** The SDK's Streamable HTTP error, by shape: its `code` is the HTTP status, or -1. */
function httpError(err: unknown): { status: number; said: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const match = /^Streamable HTTP error: (.*)$/s.exec(err.message);
  const status = (err as { code?: unknown }).code;
  if (!match || typeof status !== "number") return undefined;
  return { status, said: match[1] as string };
}

function quoted(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
}

/**
 * Why a Streamable HTTP server could not be reached or answered no MCP, as a person can act on
 * it (`source` is the settings file to fix), or undefined when the error is not about the URL.
 * fetch says only "fetch failed" (the why is in its cause), and the SDK's own message carries
 * neither the status nor the address.
 */
export function httpFailure(err: unknown, url: string, source: string): string | undefined {
  const fix = `fix "url" in ${source}`;
  if (err instanceof TypeError && err.message === "fetch failed") {
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    const code = typeof cause?.code === "string" ? cause.code : undefined;
    if (code === "ECONNREFUSED")
      return `nothing answers at ${url} (connection refused): start the server, or ${fix}`;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN")
      return `the host "${new URL(url).hostname}" was not found (${code}): ${fix}`;
    const why = typeof cause?.message === "string" ? cause.message : err.message;
    return `${url} could not be reached (${why}${code && !why.includes(code) ? `, ${code}` : ""}): check that the server runs, or ${fix}`;
  }
  const http = httpError(err);
  if (!http) return undefined;
  const unexpected = /^Unexpected content type: (.*)$/s.exec(http.said);
  if (unexpected)
    return `${url} answered with ${unexpected[1]}, not MCP: ${fix} to the server's MCP endpoint`;
  if (http.status <= 0) return `${url}: ${quoted(http.said)}`;
  const body = http.said.replace(/^Error POSTing to endpoint: /, "");
  const phrase = reasonPhrase(http.status);
  const status = `${url} answered HTTP ${http.status}${phrase ? ` (${phrase})` : ""}: ${quoted(body)}`;
  if (http.status === 401 || http.status === 403)
    return `${status}. If it needs a token, set it in "headers" (such as "Authorization": "Bearer …") in ${source}`;
  if (http.status === 404 || http.status === 405) return `${status}: ${fix} to the server's MCP endpoint`;
  return status;
}
