import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { resolveLatheHome } from "../config/lathe-home.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { Settings } from "../config/lathe-settings.ts";
import type { ToolSession } from "../tools/tool-session.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { createSearchProvider, type SearchProvider, type SearchResult } from "./web/search-providers.ts";

export type WebSearchSettings = Settings["web"]["search"];

export interface WebSearchData {
  results: SearchResult[];
}

const DEFAULT_MAX_RESULTS = 8;
const MAX_RESULTS = 20;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    query: z.string().min(1).max(400),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .optional()
      .describe(`Default ${DEFAULT_MAX_RESULTS}.`),
  });

function description(settings: WebSearchSettings): string {
  return `Search the web: results {title, url, snippet}, best first. For what you do not know or what may have changed (docs, error messages, releases); snippets are not the pages: read those that matter with web_fetch. At most ${settings.maxCallsPerSession} searches per session, so make each query specific; each must answer within ${Math.round(settings.timeoutMs / 1000)} s.`;
}

function noProvider(settingsFile: string): ToolCallError {
  const example = JSON.stringify({
    web: { search: { providers: [{ type: "searxng", url: "http://localhost:8888" }] } },
  });
  return new ToolCallError(
    `web_search has no provider: add web.search.providers to ${settingsFile}, e.g. ${example} (a SearXNG instance with JSON output enabled), or {"type": "brave", "apiKeyEnv": "BRAVE_API_KEY"} with a Brave Search API key in that environment variable. Until a person does, answer from what you know or fetch a URL you know with web_fetch.`,
    "no_provider",
  );
}

/** The session's provider: the same one for every call of a session, spread across sessions. */
function pickProvider(providers: readonly SearchProvider[], sessionId: string): SearchProvider {
  const index = createHash("sha256").update(sessionId).digest().readUInt32BE(0) % providers.length;
  return providers[index] as SearchProvider;
}

/**
 * The web_search tool over the configured providers (SearXNG, Brave Search). One provider per
 * session, chosen by hashing the session id, so a flaky provider fails consistently; at most
 * `maxCallsPerSession` searches per session, each bounded by `timeoutMs`.
 */
export function webSearchTool(
  settings: WebSearchSettings,
  env: NodeJS.ProcessEnv = process.env,
): ToolDefinition<z.output<ReturnType<typeof schema>>, WebSearchData> {
  const providers = settings.providers.map((p) => createSearchProvider(p, env));
  const settingsFile = path.join(resolveLatheHome(env), "settings.json");
  const calls = new WeakMap<ToolSession, number>();
  const hosts = [...new Set(providers.map((p) => p.endpoint.hostname.toLowerCase()))];

  const definition = defineBuiltin({
    id: "web_search",
    description: description(settings),
    schema,
    requires: { net: { hosts } },
    readOnly: true,
    gated: true,
    kind: "fetch",
    timeoutMs: settings.timeoutMs + 5_000,
    // One key per configured provider set: approving "always" covers this session's searches.
    deriveApprovalKey: () => `web_search:${providers.map((p) => p.endpoint.origin).join(",")}`,
    async execute(args, runtime): Promise<WebSearchData> {
      if (providers.length === 0) throw noProvider(settingsFile);
      const provider = pickProvider(providers, runtime.session.id);
      const problem = provider.unavailable();
      if (problem) throw new ToolCallError(problem, "no_provider");
      const used = calls.get(runtime.session) ?? 0;
      if (used >= settings.maxCallsPerSession) {
        throw new ToolCallError(
          `web_search has used all ${settings.maxCallsPerSession} searches of this session (web.search.maxCallsPerSession). Work with the results you already have, or fetch known URLs with web_fetch; a person can raise the limit in ${settingsFile}.`,
          "quota_reached",
        );
      }
      calls.set(runtime.session, used + 1);
      const deadline = AbortSignal.timeout(settings.timeoutMs);
      try {
        const results = await provider.search(
          args.query,
          args.max_results ?? DEFAULT_MAX_RESULTS,
          AbortSignal.any([runtime.signal, deadline]),
        );
        return { results };
      } catch (err) {
        if (deadline.aborted && !runtime.signal.aborted) {
          throw new ToolCallError(
            `web_search failed: ${provider.name} did not answer within ${settings.timeoutMs} ms (web.search.timeoutMs). Try again later, or answer without searching.`,
            "provider_timeout",
          );
        }
        throw err;
      }
    },
  });
  return {
    ...definition,
    plan: () => {
      if (providers.length === 0) throw noProvider(settingsFile);
      return {
        accesses: providers.map((p) => ({ capability: "net.fetch" as const, url: p.endpoint.href })),
        unclear: [],
      };
    },
  };
}
