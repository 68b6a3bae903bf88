import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolRuntime } from "../tools/contract.ts";
import type { Envelope } from "../tools/envelope.ts";
import { OUTPUT_LIMITS } from "../tools/truncation.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { webFetchTool, type WebFetchData, type WebFetchOptions, type WebFetchSettings } from "./web-fetch.ts";
import type { LookupAll } from "./web/fetch-target.ts";
import { startTestServer, type TestServer } from "../../../../test/support/test-server.ts";
import { openWebTestEngine, type WebTestEngine } from "../../../../test/support/web-test-engine.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const LOOPBACK: WebFetchSettings = {
  allowPrivateHosts: ["127.0.0.1"],
  timeoutMs: 5_000,
  maxBytes: 10_000_000,
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startTestServer(handler);
  cleanups.push(() => server.close());
  return server;
}

async function open(
  settings: WebFetchSettings = LOOPBACK,
  extra: Parameters<typeof openWebTestEngine>[1] & { tool?: WebFetchOptions } = {},
): Promise<WebTestEngine> {
  const ws = await openWebTestEngine([webFetchTool(settings, extra.tool)], extra);
  cleanups.push(() => ws.cleanup());
  return ws;
}

async function fetchWith(args: unknown, settings?: WebFetchSettings): Promise<Envelope> {
  const ws = await open(settings);
  return ws.session.call("web_fetch", args);
}

/** The length of the note web_fetch appends to a body the deadline cut. */
function unfinishedNoteLength(content: string): number {
  const at = content.indexOf("\n\n[web_fetch stopped reading after ");
  return at < 0 ? 0 : content.length - at;
}

/** The length of the note web_fetch appends to a cut body. */
function cutNoteLength(content: string): number {
  const at = content.indexOf("\n\n[web_fetch stopped reading");
  return at < 0 ? 0 : content.length - at;
}

function send(
  type: string,
  body: string | Buffer,
  status = 200,
  headers: Record<string, string> = {},
): Handler {
  return (_req, res) => {
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(body);
  };
}

describe("web_fetch content", () => {
  it("turns an HTML page into markdown with its title", async () => {
    const server = await serve(
      send(
        "text/html; charset=utf-8",
        `<html><head><title>Guide</title><script>var x = "SCRIPT";</script></head>
         <body><nav>Menu</nav><h1>Install</h1><p>Run <code>npm i</code>, then see <a href="/next">next</a>.</p>
         <ul><li>fast</li><li>safe</li></ul></body></html>`,
      ),
    );
    const data = outputOf<WebFetchData>(await fetchWith({ url: `${server.origin}/guide#part` }));
    expect(data).toMatchObject({
      url: `${server.origin}/guide#part`,
      final_url: `${server.origin}/guide`,
      status: 200,
      content_type: "text/html; charset=utf-8",
      title: "Guide",
    });
    expect(data.content).toBe(
      `# Install\n\nRun \`npm i\`, then see [next](${server.origin}/next).\n\n-   fast\n-   safe`,
    );
  });

  it("cuts a page's huge <title> instead of handing all of it to the model", async () => {
    const server = await serve(
      send(
        "text/html",
        `<html><head><title>Big ${"T".repeat(600_000)}</title></head><body><p>body</p></body></html>`,
      ),
    );
    const envelope = await fetchWith({ url: server.origin });
    const data = outputOf<WebFetchData>(envelope);
    expect(data.title?.startsWith("Big TTT")).toBe(true);
    expect(data.title?.endsWith("…")).toBe(true);
    expect(data.title?.length).toBeLessThanOrEqual(500);
    expect(data.content).toBe("body");
    expect(JSON.stringify(envelope).length).toBeLessThan(2_000);
  });

  it("reads a legacy latin1 page that declares no charset as a browser does, not as U+FFFD", async () => {
    const server = await serve(
      send("text/html", Buffer.from("<title>Caf\xe9</title><p>cr\xe8me br\xfbl\xe9e</p>", "latin1")),
    );
    const data = outputOf<WebFetchData>(await fetchWith({ url: `${server.origin}/menu` }));
    expect(data).toMatchObject({ title: "Café", content: "crème brûlée" });
  });

  it("returns plain text, JSON and XML as they are", async () => {
    const text = "line one\n  line two\n";
    const json = '{"name": "lathe", "tags": ["a", "b"]}';
    const server = await serve((req, res) => {
      if (req.url === "/t") send("text/plain", text)(req, res);
      else if (req.url === "/j") send("application/json", json)(req, res);
      else send("application/rss+xml", "<rss><item>x</item></rss>")(req, res);
    });
    const ws = await open();
    const t = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/t` }));
    expect(t.content).toBe(text);
    expect(t.title).toBeUndefined();
    const j = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/j` }));
    expect(j).toMatchObject({ content: json, content_type: "application/json" });
    const x = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/x` }));
    expect(x.content).toBe("<rss><item>x</item></rss>");
  });

  it("returns the page of a non-2xx answer with its status", async () => {
    const server = await serve(send("text/plain", "no such page", 404));
    const data = outputOf<WebFetchData>(await fetchWith({ url: `${server.origin}/missing` }));
    expect(data).toMatchObject({ status: 404, content: "no such page" });
  });

  it.each([
    ["image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])],
    ["application/pdf", Buffer.from("%PDF-1.7\n")],
    ["application/octet-stream", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])],
  ])("refuses %s, naming the type", async (type, body) => {
    const server = await serve(send(type, body));
    const message = errorOf(await fetchWith({ url: `${server.origin}/file` }));
    expect(message).toContain(`web_fetch got ${type} from ${server.origin}/file, which is not text`);
  });

  /** Bytes a file of this kind starts with, then filler that is not text (control bytes and NULs). */
  function fileBytes(signature: string | number[]): Buffer {
    const head = typeof signature === "string" ? Buffer.from(signature, "latin1") : Buffer.from(signature);
    const filler = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 256));
    return Buffer.concat([head, filler]);
  }

  it.each([
    ["a PDF document", "text/html", fileBytes("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")],
    ["a PNG image", "text/plain", fileBytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ["a JPEG image", "text/html; charset=utf-8", fileBytes([0xff, 0xd8, 0xff, 0xe0])],
    ["a zip archive", "application/json", fileBytes("PK\x03\x04")],
    ["gzip-compressed data", "text/html", zlib.gzipSync(Buffer.from("<p>compressed twice</p>".repeat(99)))],
    ["binary data", "text/html", Buffer.from("<html>\0\x01\x02\x03\0\0\x04 rest of a dump</html>", "latin1")],
  ])("refuses %s sent as %s instead of returning it as text", async (what, type, body) => {
    const server = await serve(send(type, body));
    const message = errorOf(await fetchWith({ url: `${server.origin}/file` }));
    expect(message).toContain(`web_fetch got ${what} from ${server.origin}/file`);
    expect(message).toContain(`the server labelled it ${type.split(";")[0]}`);
    expect(message).toContain("not text");
  });

  it.each([
    [
      "UTF-16 declared in the content type, without a byte order mark",
      "text/plain; charset=utf-16le",
      Buffer.from("wide text", "utf16le"),
      "wide text",
    ],
    [
      "UTF-16 with a byte order mark and no content type",
      "",
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from("<!doctype html><title>W</title><p>wide page", "utf16le"),
      ]),
      "wide page",
    ],
    [
      "a build log with colour escapes",
      "text/plain",
      Buffer.from("\x1b[31merror\x1b[0m: failed\n"),
      "\x1b[31merror\x1b[0m: failed\n",
    ],
    [
      "a page with one stray control byte",
      "text/html",
      Buffer.from(`<p>${"words ".repeat(200)}\x01 end</p>`),
      "end",
    ],
  ])("still reads text: %s", async (_what, type, body, expected) => {
    const server = await serve((_req, res) => {
      res.writeHead(200, type ? { "content-type": type } : {});
      res.end(body);
    });
    expect(outputOf<WebFetchData>(await fetchWith({ url: server.origin })).content).toContain(expected);
  });

  it("reads text a server labels application/octet-stream (it did not know the type)", async () => {
    const server = await serve(send("application/octet-stream", "plain text\nof a raw file\n"));
    const data = outputOf<WebFetchData>(await fetchWith({ url: `${server.origin}/raw/notes.txt` }));
    expect(data).toMatchObject({ status: 200, content: "plain text\nof a raw file\n" });
  });

  it("sniffs a body sent without a content type", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200);
      res.end(req.url === "/bin" ? Buffer.from([1, 2, 0, 3]) : "<!doctype html><title>T</title><p>hello</p>");
    });
    const ws = await open();
    expect(
      outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/page` })),
    ).toMatchObject({
      title: "T",
      content: "hello",
    });
    expect(errorOf(await ws.session.call("web_fetch", { url: `${server.origin}/bin` }))).toContain(
      "looks binary",
    );
  });

  it.each([
    ["gzip", zlib.gzipSync],
    ["deflate", zlib.deflateSync],
    ["br", zlib.brotliCompressSync],
    ["zstd", zlib.zstdCompressSync],
  ] as const)("decodes a %s body", async (encoding, compress) => {
    const text = "compressed words ".repeat(1000);
    const server = await serve(
      send("text/plain", compress(Buffer.from(text)), 200, { "content-encoding": encoding }),
    );
    expect(outputOf<WebFetchData>(await fetchWith({ url: server.origin })).content).toBe(text);
  });

  it("refuses a body that stacks more content-encodings than any server uses, quoting the header briefly", async () => {
    // Five thousand `br` made five thousand decompressors and quoted the whole 16 KB header.
    const header = Array.from({ length: 5_000 }, () => "br").join(",");
    const server = await serve(send("text/plain", "x", 200, { "content-encoding": header }));
    const error = errorOf(await fetchWith({ url: server.origin }));
    expect(error).toContain(
      "stacked 5000 content-encodings on one body (br, br, br, …); web_fetch decodes at most 5",
    );
    expect(error.length).toBeLessThan(1_000);
    // Two stacked, as a real server may: decoded.
    const twice = zlib.gzipSync(zlib.brotliCompressSync(Buffer.from("two layers")));
    const real = await serve(send("text/plain", twice, 200, { "content-encoding": "br, gzip" }));
    expect(outputOf<WebFetchData>(await fetchWith({ url: real.origin })).content).toBe("two layers");
  });

  it("asks for zstd, and refuses a zstd stream that needs more than 8 MB of window to decode", async () => {
    // Without a known size the frame declares its window: 128 MB here, memory the decoder would take.
    const wide = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const zstd = zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_windowLog]: 27 } });
      zstd.on("data", (c: Buffer) => chunks.push(c));
      zstd.on("end", () => resolve(Buffer.concat(chunks)));
      zstd.on("error", reject);
      zstd.end(Buffer.from("wide window ".repeat(100)));
    });
    let accepted = "";
    const server = await serve((req, res) => {
      accepted = String(req.headers["accept-encoding"]);
      send("text/plain", wide, 200, { "content-encoding": "zstd" })(req, res);
    });
    expect(errorOf(await fetchWith({ url: server.origin }))).toContain(
      "the server sent a zstd body that needs a window over 8 MB to decode, more than HTTP allows and web_fetch holds",
    );
    expect(accepted.split(/,\s*/)).toContain("zstd");
  });

  it("says so when a body is not valid for its content-encoding", async () => {
    const server = await serve(send("text/plain", "not gzip at all", 200, { "content-encoding": "gzip" }));
    expect(errorOf(await fetchWith({ url: server.origin }))).toMatch(/could not read .*not valid gzip/);
  });
});

describe("web_fetch limits", () => {
  it("cuts a body at max_bytes and says how to get more", async () => {
    const server = await serve(send("text/plain", "x".repeat(50_000)));
    const data = outputOf<WebFetchData>(await fetchWith({ url: server.origin, max_bytes: 1_000 }));
    expect(
      data.content.startsWith(`${"x".repeat(1_000)}\n\n[web_fetch stopped reading after 1000 bytes`),
    ).toBe(true);
    expect(data.content).toContain("larger max_bytes (up to 10000000)");
  });

  it("never reads past the settings' maxBytes, whatever max_bytes asks", async () => {
    const server = await serve(send("text/plain", "y".repeat(5_000)));
    const data = outputOf<WebFetchData>(
      await fetchWith({ url: server.origin, max_bytes: 1_000_000 }, { ...LOOPBACK, maxBytes: 2_048 }),
    );
    expect(
      data.content.startsWith(`${"y".repeat(2_048)}\n\n[web_fetch stopped reading after 2048 bytes`),
    ).toBe(true);
    expect(data.content).toContain("That is the most web_fetch reads");
  });

  it.each([
    ["gzip", zlib.gzipSync],
    [
      "br",
      (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 2 } }),
    ],
    ["zstd", zlib.zstdCompressSync],
  ] as const)("stops a %s bomb at the cap instead of inflating it", async (encoding, compress) => {
    const bomb = compress(Buffer.alloc(64 * 1024 * 1024, "A"));
    expect(bomb.length).toBeLessThan(200_000);
    const server = await serve(send("text/plain", bomb, 200, { "content-encoding": encoding }));
    const data = outputOf<WebFetchData>(await fetchWith({ url: server.origin, max_bytes: 100_000 }));
    expect(
      data.content.startsWith(`${"A".repeat(100_000)}\n\n[web_fetch stopped reading after 100000 bytes`),
    ).toBe(true);
  });

  it("stops reading an endless compressed stream and closes the connection", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      const gzip = zlib.createGzip();
      gzip.pipe(res);
      let open = true;
      res.on("close", () => {
        open = false;
        gzip.destroy();
        closed();
      });
      const chunk = Buffer.alloc(256 * 1024, "B");
      const pump = (): void => {
        while (open && gzip.write(chunk));
        if (open) gzip.once("drain", pump);
      };
      pump();
    });
    const data = outputOf<WebFetchData>(await fetchWith({ url: server.origin, max_bytes: 150_000 }));
    expect(data.content.length).toBe(150_000 + cutNoteLength(data.content));
    expect(data.content.includes("stopped reading after 150000 bytes")).toBe(true);
    await connectionClosed;
  });

  it("reads the text after 10 MB of inline script and style, not only the cut note", async () => {
    const page = Buffer.concat([
      Buffer.from("<html><head><title>T</title><style>"),
      Buffer.alloc(2_000_000, "p{}"),
      Buffer.from("</style><script>"),
      Buffer.alloc(10_000_000, "x=1;"),
      Buffer.from("</script></head><body><h1>Article</h1><p>the words</p></body></html>"),
    ]);
    const server = await serve(send("text/html", page));
    const data = outputOf<WebFetchData>(await fetchWith({ url: server.origin }));
    expect(data).toMatchObject({ title: "T", content: "# Article\n\nthe words" });
  });

  it("counts max_bytes without the scripts it left out, and says how much it left out", async () => {
    const page = `<script>${"s".repeat(50_000)}</script><p>${"w".repeat(5_000)}</p>`;
    const server = await serve(send("text/html", page));
    const data = outputOf<WebFetchData>(await fetchWith({ url: server.origin, max_bytes: 2_000 }));
    expect(data.content).toMatch(/^w{1900,}/);
    expect(data.content).toContain(
      "[web_fetch stopped reading after 2000 bytes of the body (not counting 50000 bytes of scripts and styles, which it leaves out)",
    );
  });

  it("stops an endless inline script at its read ceiling, closes the connection and says why", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    let sent = 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<p>before</p><script>");
      let open = true;
      res.on("close", () => {
        open = false;
        closed();
      });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = (): void => {
        while (open && res.write(chunk)) sent += chunk.length;
        if (open) res.once("drain", pump);
      };
      pump();
    });
    const data = outputOf<WebFetchData>(
      await fetchWith({ url: server.origin }, { ...LOOPBACK, maxBytes: 100_000 }),
    );
    await connectionClosed;
    expect(data.content).toMatch(/^before\n\n\[web_fetch stopped reading after 4\d{5} bytes of the body, /);
    expect(data.content).toContain("most of them scripts and styles, which it leaves out");
    expect(sent).toBeLessThan(10_000_000);
  });

  it("gives up on a server that never answers, within the timeout", async () => {
    const server = await serve(() => {
      /* never answers */
    });
    const started = performance.now();
    const message = errorOf(
      await fetchWith({ url: `${server.origin}/slow` }, { ...LOOPBACK, timeoutMs: 300 }),
    );
    expect(message).toBe(
      `web_fetch gave up on ${server.origin}/slow after 300 ms: the server was too slow to answer or to send the page. Try again later, or fetch a smaller page.`,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("returns what a body trickling in too slowly sent by the deadline, marked as its start", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write(".");
      const timer = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(timer));
    });
    const data = outputOf<WebFetchData>(
      await fetchWith({ url: server.origin }, { ...LOOPBACK, timeoutMs: 400 }),
    );
    const body = data.content.slice(0, data.content.length - unfinishedNoteLength(data.content));
    expect(body).toMatch(/^\.+$/);
    expect(data.content).toContain("after 0.4 s (its time limit) while the server was still sending");
  });

  it("stops when the call is aborted and closes the connection", async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
      res.on("close", () => closed());
      arrived();
    });
    const ws = await open();
    const controller = new AbortController();
    const call = ws.session.call("web_fetch", { url: server.origin }, { signal: controller.signal });
    await requestArrived;
    controller.abort(new Error("the user pressed stop"));
    expect(errorOf(await call)).toBe("web_fetch was aborted: the user pressed stop.");
    await connectionClosed;
  });

  it("cuts content over 200 KB to a head and writes the whole text to a sidecar", async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `line ${i} of a long text file\n`).join("");
    expect(Buffer.byteLength(text)).toBeGreaterThan(OUTPUT_LIMITS.webFetchBytes);
    const server = await serve(send("text/plain", text));
    const ws = await open();
    const envelope = await ws.session.call("web_fetch", { url: server.origin });
    const data = outputOf<WebFetchData>(envelope);
    expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(OUTPUT_LIMITS.webFetchBytes);
    expect(text.startsWith(data.content)).toBe(true);
    expect(data.content.endsWith("\n")).toBe(true);
    expect(envelope.metadata.truncated).toBe(true);
    const sidecar = envelope.metadata.output_path as string;
    expect(sidecar.startsWith(ws.session.state.dir)).toBe(true);
    expect(await readFile(sidecar, "utf8")).toBe(text);
    await ws.session.close();
    expect(existsSync(sidecar)).toBe(false);
  });

  it("cuts inside a long line rather than showing only the lines before it", async () => {
    // A short first line, then one long paragraph (or minified text): ending on a whole line
    // would show the model the heading and nothing else.
    const paragraph = "word ".repeat(100_000);
    const server = await serve(send("text/plain", `Title\n${paragraph}\nlast line\n`));
    const envelope = await fetchWith({ url: server.origin });
    const data = outputOf<WebFetchData>(envelope);
    expect(envelope.metadata.truncated).toBe(true);
    expect(data.content.startsWith(`Title\nword word`)).toBe(true);
    expect(Buffer.byteLength(data.content)).toBeGreaterThan(OUTPUT_LIMITS.webFetchBytes - 8);
    expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(OUTPUT_LIMITS.webFetchBytes);
    expect(await readFile(envelope.metadata.output_path as string, "utf8")).toBe(
      `Title\n${paragraph}\nlast line\n`,
    );
  });

  it("keeps the note that the page itself was cut when the content is also cut for the model", async () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `line ${i} of a long text file\n`).join("");
    const server = await serve(send("text/plain", text));
    const ws = await open();
    const envelope = await ws.session.call("web_fetch", { url: server.origin, max_bytes: 1_000_000 });
    const data = outputOf<WebFetchData>(envelope);
    expect(envelope.metadata.truncated).toBe(true);
    // The model is told the page goes on past what web_fetch read, not only that the sidecar has the rest.
    expect(data.content).toMatch(
      /\n\n\[web_fetch stopped reading after 1000000 bytes of the body: the page is longer and was cut here\. Call again with a larger max_bytes \(up to 10000000\) to get more\.\]$/,
    );
    expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(OUTPUT_LIMITS.webFetchBytes);
    const head = data.content.slice(0, data.content.length - cutNoteLength(data.content));
    expect(text.startsWith(head)).toBe(true);
    expect(head.endsWith("\n")).toBe(true);
    // What is left out is counted from the body the head stops in, and the sidecar holds all of it.
    const sidecar = await readFile(envelope.metadata.output_path as string, "utf8");
    expect(sidecar.startsWith(text.slice(0, 1_000_000))).toBe(true);
    expect(sidecar.endsWith(data.content.slice(head.length))).toBe(true);
    const rest = sidecar.length - head.length - cutNoteLength(data.content);
    expect(envelope.metadata.left_out).toContain(`(${(rest / 1024).toFixed(1)} KB)`);
  });
});

describe("web_fetch redirects", () => {
  it("follows a chain of redirects, relative and absolute, and reports the final URL", async () => {
    const server = await serve((req, res) => {
      const next: Record<string, string> = { "/a": "/b", "/b": "c?x=1", "/c?x=1": "/final" };
      const to = next[req.url ?? ""];
      if (to) {
        res.writeHead(req.url === "/a" ? 301 : 307, {
          location: to === "/final" ? `${server.origin}/final` : to,
        });
        res.end("moved");
      } else send("text/plain", `at ${req.url}`)(req, res);
    });
    const data = outputOf<WebFetchData>(await fetchWith({ url: `${server.origin}/a` }));
    expect(data).toMatchObject({
      url: `${server.origin}/a`,
      final_url: `${server.origin}/final`,
      content: "at /final",
    });
    expect(server.requests).toEqual(["/a", "/b", "/c?x=1", "/final"]);
  });

  it("stops after five redirects", async () => {
    const server = await serve((req, res) => {
      const n = Number((req.url ?? "/0").slice(1));
      res.writeHead(302, { location: `/${n + 1}` });
      res.end();
    });
    const message = errorOf(await fetchWith({ url: `${server.origin}/0` }));
    expect(message).toContain("web_fetch stopped after 5 redirects");
    expect(server.requests).toEqual(["/0", "/1", "/2", "/3", "/4", "/5"]);
  });

  it("refuses a redirect from an allowed server to the cloud metadata address", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      res.end();
    });
    const message = errorOf(await fetchWith({ url: `${server.origin}/start` }));
    expect(message).toContain(
      `${server.origin}/start redirected to http://169.254.169.254/latest/meta-data/, which web_fetch will not follow: web_fetch refuses http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a link-local address`,
    );
  });

  it("refuses a redirect to a local address in another spelling", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(301, { location: "http://0x7f.2:1/" });
      res.end();
    });
    expect(errorOf(await fetchWith({ url: server.origin }))).toContain("127.0.0.2 is a loopback address");
  });

  it("refuses a redirect to file:", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: "file:///etc/passwd" });
      res.end();
    });
    expect(errorOf(await fetchWith({ url: server.origin }))).toContain(
      "redirected to file:///etc/passwd, which web_fetch will not follow: web_fetch only fetches http:// and https:// URLs",
    );
  });

  it("puts a redirect to another host through the permission rules", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/go") {
        res.writeHead(302, { location: `http://localhost:${server.port}/there` });
        res.end();
      } else send("text/plain", "should not be fetched")(req, res);
    });
    const ws = await open(
      { ...LOOPBACK, allowPrivateHosts: ["127.0.0.1", "localhost"] },
      { manifestRules: [{ permission: "net.fetch", pattern: "localhost", action: "deny" }] },
    );
    const message = errorOf(await ws.session.call("web_fetch", { url: `${server.origin}/go` }));
    expect(message).toContain(
      `redirected to http://localhost:${server.port}/there, which web_fetch will not follow`,
    );
    expect(message).toContain("denied");
    expect(server.requests).toEqual(["/go"]);
  });
});

describe("web_fetch address safety", () => {
  it.each([
    "http://127.0.0.1:PORT/",
    "http://localhost:PORT/",
    "http://[::1]:PORT/",
    "http://2130706433:PORT/",
    "http://0x7f.1:PORT/",
  ])("refuses %s when no private host is allowed, and never connects", async (template) => {
    const server = await serve(send("text/plain", "secret"));
    const message = errorOf(
      await fetchWith(
        { url: template.replace("PORT", String(server.port)) },
        { ...LOOPBACK, allowPrivateHosts: [] },
      ),
    );
    expect(message).toMatch(/^web_fetch refuses .*loopback/);
    expect(message).toContain("web.fetch.allowPrivateHosts");
    expect(server.requests).toEqual([]);
  });

  it.each([
    ["file:///etc/passwd", "uses file"],
    ["ftp://127.0.0.1/pub", "uses ftp"],
    ["not a url", "is not a valid URL"],
  ])("refuses %s before asking for approval", async (url, what) => {
    const ws = await open(LOOPBACK, { mode: "ask" });
    const message = errorOf(await ws.session.call("web_fetch", { url }));
    expect(message).toContain(what);
    expect(message).not.toContain("approval");
  });

  it.each(["http://127.0.0.1:PORT/", "http://localhost:PORT/", "http://[::1]:PORT/"])(
    "refuses %s before a person is asked to approve it, when settings do not allow it (approval would not let it through)",
    async (template) => {
      const server = await serve(send("text/plain", "secret"));
      const asked: string[] = [];
      const ws = await open(
        { ...LOOPBACK, allowPrivateHosts: [] },
        {
          mode: "ask",
          approver: async (request) => {
            asked.push(request.toolId);
            return "once";
          },
        },
      );
      const message = errorOf(
        await ws.session.call("web_fetch", { url: template.replace("PORT", String(server.port)) }),
      );
      expect(message).toMatch(/^web_fetch refuses .*loopback.*web\.fetch\.allowPrivateHosts/);
      expect(asked).toEqual([]);
      expect(server.requests).toEqual([]);
    },
  );

  it("asks a person for an allowed local host as for any other, and fetches it once approved", async () => {
    const server = await serve(send("text/plain", "dev server"));
    const asked: string[] = [];
    const ws = await open(LOOPBACK, {
      mode: "ask",
      approver: async (request) => {
        asked.push(request.toolId);
        return "once";
      },
    });
    const data = outputOf<WebFetchData>(await ws.session.call("web_fetch", { url: `${server.origin}/` }));
    expect(data.content).toBe("dev server");
    expect(asked).toEqual(["web_fetch"]);
  });

  it("reaches a listed local host by name (a dev server on localhost)", async () => {
    const server = await serve(send("text/plain", "dev server"));
    const data = outputOf<WebFetchData>(
      await fetchWith(
        { url: `http://localhost:${server.port}/` },
        { ...LOOPBACK, allowPrivateHosts: [`localhost:${server.port}`] },
      ),
    );
    expect(data.content).toBe("dev server");
  });

  it("connects to the address it checked, not to a second DNS answer, and keeps the Host name", async () => {
    const server = await serve((req, res) => send("text/plain", `host=${req.headers.host}`)(req, res));
    const asked: string[] = [];
    // The first answer is checked and used; a rebinding resolver would answer differently next time.
    const lookup: LookupAll = (host) => {
      asked.push(host);
      return Promise.resolve([{ address: asked.length === 1 ? "127.0.0.1" : "10.9.9.9", family: 4 }]);
    };
    const ws = await open({ ...LOOPBACK, allowPrivateHosts: ["app.test"] }, { tool: { lookup } });
    const data = outputOf<WebFetchData>(
      await ws.session.call("web_fetch", { url: `http://app.test:${server.port}/` }),
    );
    expect(data.content).toBe(`host=app.test:${server.port}`);
    expect(asked).toEqual(["app.test"]);
  });

  it("is gated: a headless session without a rule refuses it", async () => {
    const server = await serve(send("text/plain", "x"));
    const ws = await open(LOOPBACK, { mode: "ask" });
    expect(errorOf(await ws.session.call("web_fetch", { url: server.origin }))).toContain("needs approval");
    expect(server.requests).toEqual([]);
  });

  it("lets permission rules judge the host before anything is fetched", async () => {
    const server = await serve(send("text/plain", "x"));
    const ws = await open(LOOPBACK, {
      manifestRules: [{ permission: "web_fetch", pattern: "127.0.0.1", action: "deny" }],
    });
    expect(errorOf(await ws.session.call("web_fetch", { url: server.origin }))).toContain(
      "web_fetch was denied",
    );
    expect(server.requests).toEqual([]);
  });

  it("keys approvals by origin and declares itself a gated, read-only fetch", () => {
    const tool = webFetchTool(LOOPBACK);
    expect(tool.deriveApprovalKey({ url: "https://Example.com:443/a/b?q=1#x" })).toBe(
      "web_fetch:https://example.com",
    );
    expect(tool.plan?.({ url: "https://example.com/a" })).toEqual({
      accesses: [{ capability: "net.fetch", url: "https://example.com/a" }],
      unclear: [],
    });
    expect(tool).toMatchObject({
      readOnly: true,
      gated: true,
      kind: "fetch",
      requires: { net: { hosts: ["*"] } },
    });
  });
});

describe("web_fetch deadline in the middle of the body", () => {
  /**
   * The server's write callback says the chunk left, not that the client read it; on loopback it
   * has after a moment. (Were it not yet read, the abort tests would pass without testing much.)
   */
  const clientHasRead = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

  /** A server that sends its headers and `first` (unless empty), then stalls until the client leaves. */
  function stallAfter(headers: Record<string, string>, first: string | Buffer, closed?: () => void): Handler {
    return (_req, res) => {
      res.writeHead(200, headers);
      if (first.length > 0) res.write(first);
      else res.flushHeaders(); // Node holds headers back until the first write
      res.on("close", () => closed?.());
    };
  }

  it("returns an HTML page's first part, converted, with a note that it is only the start", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serve(
      stallAfter(
        { "content-type": "text/html; charset=utf-8" },
        "<html><head><title>Slow</title></head><body><h1>Intro</h1><p>first paragraph</p>",
        closed,
      ),
    );
    const data = outputOf<WebFetchData>(
      await fetchWith({ url: `${server.origin}/slow` }, { ...LOOPBACK, timeoutMs: 300 }),
    );
    expect(data).toMatchObject({ final_url: `${server.origin}/slow`, status: 200, title: "Slow" });
    const bytes = Buffer.byteLength(
      "<html><head><title>Slow</title></head><body><h1>Intro</h1><p>first paragraph</p>",
    );
    expect(data.content).toBe(
      `# Intro\n\nfirst paragraph\n\n[web_fetch stopped reading after 0.3 s (its time limit) while the server was still sending: this is only the start of the page (${bytes} bytes of the body). Try again later for the whole page, or fetch a smaller or more specific URL.]`,
    );
    await connectionClosed;
  });

  it("keeps the error when the headers came but nothing of the body", async () => {
    const server = await serve(stallAfter({ "content-type": "text/plain" }, ""));
    const message = errorOf(await fetchWith({ url: `${server.origin}/x` }, { ...LOOPBACK, timeoutMs: 300 }));
    expect(message).toContain(`web_fetch gave up on ${server.origin}/x after 300 ms`);
  });

  it("keeps the error when a compressed body has not inflated to one byte yet", async () => {
    // The first ten bytes of a gzip stream: its header, no data.
    const header = zlib.gzipSync(Buffer.from("never seen")).subarray(0, 10);
    const server = await serve(
      stallAfter({ "content-type": "text/plain", "content-encoding": "gzip" }, header),
    );
    const message = errorOf(await fetchWith({ url: server.origin }, { ...LOOPBACK, timeoutMs: 300 }));
    expect(message).toContain("gave up");
  });

  it("returns what inflated so far of a gzip stream cut in the middle", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      const gzip = zlib.createGzip();
      gzip.pipe(res);
      gzip.write("the first half of a compressed page\n");
      gzip.flush(); // pushes out what was written, the stream still open
      res.on("close", () => gzip.destroy());
    });
    const data = outputOf<WebFetchData>(
      await fetchWith({ url: server.origin }, { ...LOOPBACK, timeoutMs: 300 }),
    );
    expect(data.content).toMatch(
      /^the first half of a compressed page\n\n\n\[web_fetch stopped reading after 0\.3 s .* \(36 bytes of the body\)/,
    );
  });

  it("a person's Stop in the middle of the body is an abort, never a partial page", async () => {
    let arrived!: () => void;
    const bodyStarted = new Promise<void>((resolve) => (arrived = resolve));
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the start of the page", () => arrived());
      res.on("close", () => closed());
    });
    const ws = await open({ ...LOOPBACK, timeoutMs: 400 });
    const controller = new AbortController();
    const call = ws.session.call("web_fetch", { url: server.origin }, { signal: controller.signal });
    await bodyStarted;
    await clientHasRead();
    controller.abort(new Error("the user pressed stop"));
    const envelope = await call;
    expect(errorOf(envelope)).toBe("web_fetch was aborted: the user pressed stop.");
    expect(JSON.stringify(envelope)).not.toContain("the start of the page");
    await connectionClosed;
  });

  it("the tool itself rejects with the person's reason on Stop, not with the page so far", async () => {
    // The engine reports any aborted call as aborted; this checks web_fetch's own answer.
    let arrived!: () => void;
    const bodyStarted = new Promise<void>((resolve) => (arrived = resolve));
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the start of the page", () => arrived());
    });
    const controller = new AbortController();
    const runtime = {
      signal: controller.signal,
      authorize: () => Promise.resolve(),
    } as unknown as ToolRuntime;
    const running = webFetchTool({ ...LOOPBACK, timeoutMs: 2_000 }).execute({ url: server.origin }, runtime);
    await bodyStarted;
    await clientHasRead();
    const reason = new Error("the user pressed stop");
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });
});
