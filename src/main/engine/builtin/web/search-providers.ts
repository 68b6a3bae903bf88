import { ToolCallError } from "../../errors/tool-call-error.ts";
import type { Settings } from "../../config/lathe-settings.ts";
import { decodeEntities } from "./html-prefilter.ts";
import { BodyEncodingError, requestOnce } from "./safe-request.ts";

type SearchProviderConfig = Settings["web"]["search"]["providers"][number];

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** One configured search backend. */
export interface SearchProvider {
  /** For messages: "SearXNG at searx.example.org". */
  readonly name: string;
  /** The URL requests go to (without the query). */
  readonly endpoint: URL;
  /** Why this provider cannot be used right now (a missing API key), or undefined. */
  unavailable(): string | undefined;
  search(query: string, maxResults: number, signal: AbortSignal): Promise<SearchResult[]>;
}

const BRAVE_DEFAULT_URL = "https://api.search.brave.com/res/v1/web/search";

/** Provider answers are small; anything past this is not a search result page. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * The longest title, snippet and URL a result keeps: a search engine's are far shorter, and the
 * model reads every result whole (a provider may send megabytes in one field).
 */
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1_000;
const MAX_URL_CHARS = 4_096;

/** `text` cut to `max` characters, ending in "…" when cut or when `more` follows it. */
function clip(text: string, max: number, more = false): string {
  if (!more && text.length <= max) return text;
  // By code points, so a cut never leaves half a surrogate pair.
  const chars = Array.from(text.slice(0, max));
  return `${chars.slice(0, -1).join("").trimEnd()}…`;
}

/** A provider's title or snippet as plain text of at most `max` characters. */
function plain(text: unknown, max: number): string {
  if (typeof text !== "string") return "";
  // Only the start is kept: tags and entities are stripped from a slice of it, not from megabytes.
  const scanned = text.slice(0, max * 8);
  const clean = decodeEntities(scanned.replace(/<[^<>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
  return clip(clean, max, scanned.length < text.length);
}

/** A Retry-After header as words ("30 seconds", "until Wed, 21 Oct 2026 07:28:00 GMT"), or undefined. */
function retryAfter(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === "" || value.length > 64) return undefined;
  if (/^\d+$/.test(value)) return `${Number(value)} second${value === "1" ? "" : "s"}`;
  return Number.isNaN(Date.parse(value)) ? undefined : `until ${value}`;
}

function isWebUrl(value: unknown): value is string {
  if (typeof value !== "string" || value.length > MAX_URL_CHARS) return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Results from a list of provider items: web URLs only, titles and snippets as plain text, each capped (see MAX_TITLE_CHARS). */
function toResults(items: unknown, snippetField: string, max: number): SearchResult[] {
  if (!Array.isArray(items)) return [];
  const results: SearchResult[] = [];
  for (const item of items as Record<string, unknown>[]) {
    if (results.length >= max) break;
    if (typeof item !== "object" || item === null || !isWebUrl(item.url)) continue;
    results.push({
      title: plain(item.title, MAX_TITLE_CHARS) || clip(item.url, MAX_TITLE_CHARS),
      url: item.url,
      snippet: plain(item[snippetField], MAX_SNIPPET_CHARS),
    });
  }
  return results;
}

async function getJson(
  provider: SearchProvider,
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  explainStatus: (status: number) => string | undefined,
): Promise<unknown> {
  let response;
  try {
    response = await requestOnce({
      url,
      headers: {
        Accept: "application/json",
        "Accept-Encoding": "gzip, deflate, br",
        "User-Agent": "Lathe web_search",
        ...headers,
      },
      maxBytes: MAX_RESPONSE_BYTES,
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const e = err as NodeJS.ErrnoException;
    const detail =
      err instanceof BodyEncodingError
        ? e.message
        : `${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ""}`;
    throw new ToolCallError(
      `web_search could not reach ${provider.name}: ${detail}. Try again later.`,
      "provider_error",
      {
        cause: err,
      },
    );
  }
  const text = response.body.toString("utf8");
  if (response.status < 200 || response.status > 299) {
    // The provider's own words, as plain text: an error page's HTML is no help to the model.
    const hint = explainStatus(response.status) ?? plain(text.slice(0, 4_096).replace(/<[^<>]*>/g, " "), 200);
    const retry = retryAfter(response.headers["retry-after"]);
    throw new ToolCallError(
      `web_search failed: ${provider.name} answered HTTP ${response.status}${hint ? ` (${hint})` : ""}.${retry ? ` It asks to wait ${retry} before searching again.` : ""} Try again later, or answer without searching.`,
      "provider_error",
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ToolCallError(
      `web_search failed: ${provider.name} did not answer with JSON${response.cut ? " (the answer was too large)" : ""}. Check the provider URL in settings.`,
      "provider_error",
    );
  }
}

/** `value[key]` when value is an object, else undefined. */
function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function searxng(config: { url: string }): SearchProvider {
  const base = new URL(config.url);
  const endpoint = /\/search\/?$/.test(base.pathname)
    ? base
    : new URL("search", base.href.endsWith("/") ? base : `${base.href}/`);
  const provider: SearchProvider = {
    name: `SearXNG at ${endpoint.host}`,
    endpoint,
    unavailable: () => undefined,
    async search(query, maxResults, signal) {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const json = await getJson(provider, url, {}, signal, (status) =>
        status === 403
          ? 'is JSON output enabled? Add "json" under search.formats in its settings.yml'
          : undefined,
      );
      return toResults(field(json, "results"), "content", maxResults);
    },
  };
  return provider;
}

function brave(config: { apiKeyEnv: string; url?: string }, env: NodeJS.ProcessEnv): SearchProvider {
  const endpoint = new URL(config.url ?? BRAVE_DEFAULT_URL);
  const key = (): string | undefined => env[config.apiKeyEnv]?.trim() || undefined;
  const provider: SearchProvider = {
    name: `Brave Search at ${endpoint.host}`,
    endpoint,
    unavailable: () =>
      key()
        ? undefined
        : `web_search's provider (Brave Search) needs an API key in the environment variable ${config.apiKeyEnv}, which is not set. A person must set ${config.apiKeyEnv} (a Brave Search API subscription token) and restart Lathe, or configure another provider in web.search.providers.`,
    async search(query, maxResults, signal) {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(maxResults));
      const json = await getJson(provider, url, { "X-Subscription-Token": key() ?? "" }, signal, (status) => {
        if (status === 401 || status === 403) return `it refused the API key in ${config.apiKeyEnv}`;
        if (status === 429) return "its rate limit or quota is used up";
        return undefined;
      });
      return toResults(field(field(json, "web"), "results"), "description", maxResults);
    },
  };
  return provider;
}

/** The provider a settings entry describes. */
export function createSearchProvider(config: SearchProviderConfig, env: NodeJS.ProcessEnv): SearchProvider {
  return config.type === "searxng" ? searxng(config) : brave(config, env);
}
