import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "../capability/ip-literal.ts";
import { resolveFetchTarget, type LookupAll } from "../builtin/web/fetch-target.ts";
import { BodyEncodingError, requestOnce } from "../builtin/web/safe-request.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { parseHostPatterns, type HostPattern } from "../capability/host-pattern.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

interface FetchInit {
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
}

interface FetchResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Present when the body was longer than the limit and was cut. */
  truncated?: true;
}

/** What `runtime.net.fetch` needs besides the call's runtime. */
interface PluginFetchOptions {
  toolId: string;
  /** The plugin's `requires.net.hosts`. */
  hosts: readonly string[];
  /** How host names resolve (tests inject one); default: the system resolver. */
  lookup?: LookupAll;
}

const METHOD = /^[A-Z]{1,16}$/;

/**
 * The declared entries that may lead to loopback or private addresses: IP literals and
 * `localhost`, exactly as declared (with their port, if any). A name like `api.example.com` or
 * a wildcard never may, whatever it resolves to.
 */
function privateHostsOf(patterns: readonly HostPattern[]): string[] {
  return patterns
    .filter((p) => p.kind === "ip" || (p.kind === "name" && p.host === "localhost"))
    .map((p) => {
      const host = isIP(p.host) === 6 ? `[${p.host}]` : p.host;
      return p.port === undefined ? host : `${host}:${p.port}`;
    });
}

function headersOf(raw: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function failure(url: URL, err: unknown): ToolCallError {
  if (ToolCallError.isInstance(err)) return err;
  const e = err as NodeJS.ErrnoException;
  const detail =
    err instanceof BodyEncodingError
      ? err.message
      : `${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ""}`;
  return new ToolCallError(`Fetching ${url.href} failed: ${detail}.`, "fetch_failed", { cause: err });
}

/**
 * `runtime.net.fetch` on the host. The URL is authorized first (the plugin's declared hosts and
 * ports, rules, watchdog, approval); then, as for web_fetch, its host is resolved once and every
 * address checked — loopback, private, link-local (cloud metadata) and reserved addresses are
 * refused unless the plugin declared that IP literal or `localhost` itself — and the connection
 * goes to the checked address only, so a DNS answer that changes meanwhile cannot redirect it.
 * Redirects are returned, not followed (fetching the `location` is a new, authorized request),
 * and the body is capped.
 */
export async function pluginFetch(
  runtime: ToolRuntime,
  url: string,
  init: FetchInit,
  options: PluginFetchOptions,
): Promise<FetchResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolCallError(
      `"${url}" is not a valid URL; give runtime.net.fetch a full http:// or https:// URL.`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ToolCallError(
      `runtime.net.fetch only fetches http:// and https:// URLs, not ${parsed.protocol}//.`,
    );
  }
  parsed.hash = "";
  const access = await runtime.authorize({ capability: "net.fetch", url: parsed.href });
  if (access.capability !== "net.fetch")
    throw new Error(`authorize returned ${access.capability} for net.fetch`);
  const method = (init.method ?? "GET").toUpperCase();
  if (!METHOD.test(method))
    throw new ToolCallError(
      `"${init.method}" is not an HTTP method; use GET, POST, PUT, PATCH, DELETE or HEAD.`,
    );
  if (init.body !== undefined && (method === "GET" || method === "HEAD")) {
    throw new ToolCallError(`A ${method} request cannot have a body; use POST or PUT to send one.`);
  }
  const who = `${options.toolId} (runtime.net.fetch)`;
  const target = await resolveFetchTarget(
    parsed,
    {
      allowPrivateHosts: privateHostsOf(parseHostPatterns(options.hosts)),
      ...(options.lookup ? { lookup: options.lookup } : {}),
      who,
      privateHint: () =>
        `A plugin reaches loopback or private addresses only through an IP address or localhost it declares itself (e.g. "127.0.0.1:11434" under requires.net.hosts); a host name that resolves there is refused.`,
    },
    runtime.signal,
  );
  try {
    const response = await requestOnce({
      url: parsed,
      addresses: target.addresses,
      method,
      headers: init.headers ?? {},
      ...(init.body !== undefined ? { body: init.body } : {}),
      maxBytes: PLUGIN_LIMITS.fetchBytes,
      signal: runtime.signal,
    });
    return {
      status: response.status,
      headers: headersOf(response.headers),
      text: response.body.toString("utf8"),
      ...(response.cut ? { truncated: true as const } : {}),
    };
  } catch (err) {
    if (runtime.signal.aborted) throw err;
    throw failure(parsed, err);
  }
}
