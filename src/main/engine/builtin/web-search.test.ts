import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { webSearchTool, type WebSearchData, type WebSearchSettings } from "./web-search.ts";
import { startTestServer, type TestServer } from "../../../../test/support/test-server.ts";
import { openWebTestEngine, type WebTestEngine } from "../../../../test/support/web-test-engine.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Seen {
  url: URL;
  headers: IncomingMessage["headers"];
}

/** A provider on loopback; `answer` gets each request, `seen` records them. */
async function fakeProvider(
  answer: (req: Seen, res: ServerResponse) => void,
): Promise<TestServer & { seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await startTestServer((req, res) => {
    const request = { url: new URL(req.url ?? "/", "http://127.0.0.1"), headers: req.headers };
    seen.push(request);
    answer(request, res);
  });
  cleanups.push(() => server.close());
  return Object.assign(server, { seen });
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** A SearXNG answer with `n` results for the query, the way its JSON format looks. */
function searxngAnswer(label: string) {
  return (req: Seen, res: ServerResponse): void => {
    const q = req.url.searchParams.get("q") ?? "";
    json(res, {
      query: q,
      number_of_results: 12,
      results: [
        { url: "javascript:alert(1)", title: "not a web page", content: "" },
        ...Array.from({ length: 12 }, (_, i) => ({
          url: `https://${label}.example/${i}`,
          title: `${label} result ${i} for ${q}`,
          content: `Snippet <b>${i}</b> &amp; more`,
          engine: "duckduckgo",
        })),
      ],
    });
  };
}

function settings(
  providers: WebSearchSettings["providers"],
  extra: Partial<WebSearchSettings> = {},
): WebSearchSettings {
  return { providers, maxCallsPerSession: 25, timeoutMs: 5_000, ...extra };
}

async function open(
  s: WebSearchSettings,
  env: NodeJS.ProcessEnv = {},
  options: Parameters<typeof openWebTestEngine>[1] = {},
): Promise<WebTestEngine> {
  const ws = await openWebTestEngine([webSearchTool(s, env)], options);
  cleanups.push(() => ws.cleanup());
  return ws;
}

describe("web_search with SearXNG", () => {
  it("returns titles, URLs and plain-text snippets, eight by default", async () => {
    const searx = await fakeProvider(searxngAnswer("a"));
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    const data = outputOf<WebSearchData>(await ws.session.call("web_search", { query: "lathe tools" }));
    expect(data.results).toHaveLength(8);
    expect(data.results[0]).toEqual({
      title: "a result 0 for lathe tools",
      url: "https://a.example/0",
      snippet: "Snippet 0 & more",
    });
    expect(searx.seen.map((r) => `${r.url.pathname}?${r.url.searchParams.toString()}`)).toEqual([
      "/search?q=lathe+tools&format=json",
    ]);
  });

  it("returns at most max_results", async () => {
    const searx = await fakeProvider(searxngAnswer("a"));
    const ws = await open(settings([{ type: "searxng", url: `${searx.origin}/` }]));
    const data = outputOf<WebSearchData>(await ws.session.call("web_search", { query: "q", max_results: 3 }));
    expect(data.results.map((r) => r.url)).toEqual([
      "https://a.example/0",
      "https://a.example/1",
      "https://a.example/2",
    ]);
  });

  it.each([0, 21, 2.5])("refuses max_results %s", async (max) => {
    const searx = await fakeProvider(searxngAnswer("a"));
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    expect(errorOf(await ws.session.call("web_search", { query: "q", max_results: max }))).toContain(
      "max_results",
    );
    expect(searx.seen).toHaveLength(0);
  });

  it("explains a SearXNG that has JSON output turned off", async () => {
    const searx = await fakeProvider((_req, res) => {
      res.writeHead(403);
      res.end("Forbidden");
    });
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    const message = errorOf(await ws.session.call("web_search", { query: "q" }));
    expect(message).toBe(
      `web_search failed: SearXNG at 127.0.0.1:${searx.port} answered HTTP 403 (is JSON output enabled? Add "json" under search.formats in its settings.yml). Try again later, or answer without searching.`,
    );
  });

  it("reports a provider error with its status", async () => {
    const searx = await fakeProvider((_req, res) => json(res, { error: "engine crashed" }, 500));
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    expect(errorOf(await ws.session.call("web_search", { query: "q" }))).toContain("answered HTTP 500");
  });

  it("quotes an HTML error page as plain text, and says how long a rate-limited provider asks to wait", async () => {
    const page = await fakeProvider((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><head><title>Bad gateway</title></head><body><h1>upstream   is down</h1></body></html>");
    });
    let ws = await open(settings([{ type: "searxng", url: page.origin }]));
    const message = errorOf(await ws.session.call("web_search", { query: "q" }));
    expect(message).toContain("answered HTTP 502 (Bad gateway upstream is down)");
    expect(message).not.toMatch(/<\/?[a-z]/);
    const limited = await fakeProvider((_req, res) => {
      res.writeHead(429, { "retry-after": "30" });
      res.end("slow down");
    });
    ws = await open(settings([{ type: "searxng", url: limited.origin }]));
    expect(errorOf(await ws.session.call("web_search", { query: "q" }))).toContain(
      "answered HTTP 429 (slow down). It asks to wait 30 seconds before searching again.",
    );
  });

  it("cuts a provider's oversized titles and snippets and skips absurd URLs, so the answer stays small", async () => {
    const searx = await fakeProvider((_req, res) =>
      json(res, {
        results: [
          {
            url: `https://huge.example/${"p".repeat(10_000)}`,
            title: "a URL no engine returns",
            content: "x",
          },
          ...Array.from({ length: 20 }, (_, i) => ({
            url: `https://big.example/${i}`,
            title: `Title ${i} ${"t".repeat(40_000)}`,
            content: `Snippet ${i} ${"s".repeat(140_000)}`,
          })),
        ],
      }),
    );
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    const envelope = await ws.session.call("web_search", { query: "q", max_results: 20 });
    const data = outputOf<WebSearchData>(envelope);
    expect(data.results).toHaveLength(20);
    expect(data.results[0]?.url).toBe("https://big.example/0");
    for (const [i, result] of data.results.entries()) {
      expect(result.title.startsWith(`Title ${i} ttt`)).toBe(true);
      expect(result.title.length).toBeLessThanOrEqual(300);
      expect(result.title.endsWith("…")).toBe(true);
      expect(result.snippet.startsWith(`Snippet ${i} sss`)).toBe(true);
      expect(result.snippet.length).toBeLessThanOrEqual(1_000);
      expect(result.snippet.endsWith("…")).toBe(true);
    }
    // What the model reads: twenty results, not the provider's 3.6 MB.
    expect(JSON.stringify(envelope).length).toBeLessThan(40_000);
  });

  it("reports a provider that answers with something other than JSON", async () => {
    const searx = await fakeProvider((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>login page</html>");
    });
    const ws = await open(settings([{ type: "searxng", url: searx.origin }]));
    expect(errorOf(await ws.session.call("web_search", { query: "q" }))).toContain(
      "did not answer with JSON",
    );
  });
});

describe("web_search with Brave Search", () => {
  function braveAnswer(req: Seen, res: ServerResponse): void {
    if (req.headers["x-subscription-token"] !== "secret-key") {
      json(res, { type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID" } }, 401);
      return;
    }
    const count = Number(req.url.searchParams.get("count"));
    json(res, {
      type: "search",
      web: {
        results: Array.from({ length: count }, (_, i) => ({
          title: `Brave ${i}`,
          url: `https://brave.example/${i}`,
          description: `The <strong>answer</strong> ${i}`,
        })),
      },
    });
  }

  it("sends the key from the named environment variable and maps the results", async () => {
    const brave = await fakeProvider(braveAnswer);
    const ws = await open(
      settings([{ type: "brave", apiKeyEnv: "MY_BRAVE_KEY", url: `${brave.origin}/res/v1/web/search` }]),
      {
        MY_BRAVE_KEY: "secret-key",
      },
    );
    const data = outputOf<WebSearchData>(
      await ws.session.call("web_search", { query: "rust async", max_results: 2 }),
    );
    expect(data.results).toEqual([
      { title: "Brave 0", url: "https://brave.example/0", snippet: "The answer 0" },
      { title: "Brave 1", url: "https://brave.example/1", snippet: "The answer 1" },
    ]);
    expect(brave.seen[0]?.url.pathname).toBe("/res/v1/web/search");
    expect(brave.seen[0]?.url.searchParams.get("q")).toBe("rust async");
  });

  it("says which environment variable is missing, without calling the provider", async () => {
    const brave = await fakeProvider(braveAnswer);
    const ws = await open(settings([{ type: "brave", apiKeyEnv: "MY_BRAVE_KEY", url: brave.origin }]), {});
    const message = errorOf(await ws.session.call("web_search", { query: "q" }));
    expect(message).toContain("needs an API key in the environment variable MY_BRAVE_KEY, which is not set");
    expect(brave.seen).toHaveLength(0);
  });

  it("says when the provider refuses the key", async () => {
    const brave = await fakeProvider(braveAnswer);
    const ws = await open(settings([{ type: "brave", apiKeyEnv: "K", url: brave.origin }]), { K: "wrong" });
    expect(errorOf(await ws.session.call("web_search", { query: "q" }))).toContain(
      "answered HTTP 401 (it refused the API key in K)",
    );
  });

  it("declares the default Brave host when no URL is configured", () => {
    const tool = webSearchTool(settings([{ type: "brave", apiKeyEnv: "K" }]), {});
    expect(tool.requires).toEqual({ net: { hosts: ["api.search.brave.com"] } });
    expect(tool.plan?.({ query: "q" })).toEqual({
      accesses: [{ capability: "net.fetch", url: "https://api.search.brave.com/res/v1/web/search" }],
      unclear: [],
    });
  });
});

describe("web_search per session", () => {
  it("uses one provider for a whole session, and spreads sessions over the providers", async () => {
    const a = await fakeProvider(searxngAnswer("a"));
    const b = await fakeProvider(searxngAnswer("b"));
    const ws = await open(
      settings([
        { type: "searxng", url: a.origin },
        { type: "searxng", url: b.origin },
      ]),
    );
    const usedBy = new Map<string, string>();
    for (let i = 0; i < 8; i++) {
      const session = await ws.engine.openSession({ id: `session-${i}`, mode: "yolo" });
      const hosts = new Set<string>();
      for (let call = 0; call < 3; call++) {
        const data = outputOf<WebSearchData>(await session.call("web_search", { query: `q${call}` }));
        hosts.add(new URL(data.results[0]?.url ?? "").hostname);
      }
      expect(hosts.size).toBe(1);
      usedBy.set(session.id, [...hosts][0] as string);
      await session.close();
    }
    expect(new Set(usedBy.values())).toEqual(new Set(["a.example", "b.example"]));
    // The choice depends only on the session id: reopening a session picks the same provider.
    const again = await ws.engine.openSession({ id: "session-0", mode: "yolo" });
    const data = outputOf<WebSearchData>(await again.call("web_search", { query: "again" }));
    expect(new URL(data.results[0]?.url ?? "").hostname).toBe(usedBy.get("session-0"));
    expect(a.seen.length + b.seen.length).toBe(25);
  });

  it("stops at maxCallsPerSession, counting each session separately", async () => {
    const searx = await fakeProvider(searxngAnswer("a"));
    const ws = await open(settings([{ type: "searxng", url: searx.origin }], { maxCallsPerSession: 2 }), {
      LATHE_HOME: "/home/me/.lathe-test",
    });
    for (let i = 0; i < 2; i++) outputOf(await ws.session.call("web_search", { query: `q${i}` }));
    const message = errorOf(await ws.session.call("web_search", { query: "one more" }));
    expect(message).toBe(
      `web_search has used all 2 searches of this session (web.search.maxCallsPerSession). Work with the results you already have, or fetch known URLs with web_fetch; a person can raise the limit in ${path.join("/home/me/.lathe-test", "settings.json")}.`,
    );
    expect(searx.seen).toHaveLength(2);
    const other = await ws.engine.openSession({ mode: "yolo" });
    expect(outputOf<WebSearchData>(await other.call("web_search", { query: "fresh" })).results).toHaveLength(
      8,
    );
  });

  it("times out a provider that does not answer", async () => {
    const searx = await fakeProvider(() => {
      /* never answers */
    });
    const ws = await open(settings([{ type: "searxng", url: searx.origin }], { timeoutMs: 300 }));
    const started = performance.now();
    const message = errorOf(await ws.session.call("web_search", { query: "q" }));
    expect(message).toBe(
      `web_search failed: SearXNG at 127.0.0.1:${searx.port} did not answer within 300 ms (web.search.timeoutMs). Try again later, or answer without searching.`,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("says how to configure a provider when there is none, before asking for approval", async () => {
    const ws = await open(settings([]), { LATHE_HOME: "/home/me/.lathe-test" }, { mode: "ask" });
    const message = errorOf(await ws.session.call("web_search", { query: "q" }));
    expect(message).toContain(
      `web_search has no provider: add web.search.providers to ${path.join("/home/me/.lathe-test", "settings.json")}, e.g. {"web":{"search":{"providers":[{"type":"searxng","url":"http://localhost:8888"}]}}}`,
    );
    expect(message).not.toContain("approval");
  });

  it("is a gated, read-only fetch that declares its providers' hosts", async () => {
    const tool = webSearchTool(
      settings([
        { type: "searxng", url: "http://127.0.0.1:8888" },
        { type: "searxng", url: "https://Search.Example.org/searx/" },
      ]),
      {},
    );
    expect(tool).toMatchObject({ readOnly: true, gated: true, kind: "fetch" });
    expect(tool.requires).toEqual({ net: { hosts: ["127.0.0.1", "search.example.org"] } });
    expect((await tool.plan?.({ query: "q" }))?.accesses).toEqual([
      { capability: "net.fetch", url: "http://127.0.0.1:8888/search" },
      { capability: "net.fetch", url: "https://search.example.org/searx/search" },
    ]);
  });
});
