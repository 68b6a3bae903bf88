import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

export interface FetchInit {
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
}

export interface FetchResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Present when the body was longer than the limit and was cut. */
  truncated?: true;
}

const METHOD = /^[A-Z]{1,16}$/;

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: "", truncated: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - total;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      total += room;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.byteLength;
  }
  return { text: Buffer.concat(chunks, total).toString("utf8"), truncated };
}

function failure(err: unknown): string {
  const cause = (err as { cause?: { message?: string; code?: string } }).cause;
  const detail = cause?.message ?? cause?.code;
  return `${(err as Error).message}${detail ? ` (${detail})` : ""}`;
}

/**
 * `runtime.net.fetch` on the host: the URL is authorized first (the plugin's declared hosts,
 * rules, watchdog, approval), redirects are returned rather than followed (a redirect to
 * another host must be fetched, and so authorized, on its own), and the body is capped.
 */
export async function pluginFetch(runtime: ToolRuntime, url: string, init: FetchInit): Promise<FetchResult> {
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
  let response: Response;
  try {
    response = await fetch(access.url, {
      method,
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
      redirect: "manual",
      signal: runtime.signal,
    });
  } catch (err) {
    throw new ToolCallError(`Fetching ${access.url} failed: ${failure(err)}.`);
  }
  const { text, truncated } = await readCapped(response, PLUGIN_LIMITS.fetchBytes);
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text,
    ...(truncated ? { truncated: true as const } : {}),
  };
}
