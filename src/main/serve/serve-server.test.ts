import { request } from "node:http";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, type ClientOptions } from "ws";
import { ToolInfoSchema } from "../../shared/api-contract.ts";
import { EnvelopeSchema } from "../../shared/envelope-schema.ts";
import { ApprovalRequestSchema, type ApprovalRequest } from "../../shared/push-events.ts";
import { WsResponseSchema } from "../../shared/ws-protocol.ts";
import { createWsApi, wsApiUrl, type WebSocketLike } from "../../preload/ws-api.ts";
import { Engine } from "../engine/index.ts";
import { startServe, type ServeHandle } from "./serve-server.ts";

let base: string;
let workspace: string;
let rendererDir: string;
let engine: Engine;
let serve: ServeHandle;
let origin: string;
let hostHeader: string;

const PAGE = "<!doctype html><title>Lathe test page</title>";
const SECRET = "do-not-serve-this-secret";

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-serve-")));
  workspace = path.join(base, "workspace");
  rendererDir = path.join(base, "renderer");
  await mkdir(path.join(workspace, "src"), { recursive: true });
  await writeFile(path.join(workspace, "src", "alpha.ts"), "export const a = 1;\n");
  await writeFile(path.join(workspace, "src", "beta.ts"), "export const b = 2;\n");
  await mkdir(path.join(rendererDir, "assets"), { recursive: true });
  await writeFile(path.join(rendererDir, "index.html"), PAGE);
  await writeFile(path.join(rendererDir, "assets", "app.js"), "console.log('app');");
  await writeFile(path.join(base, "secret.txt"), SECRET);
  engine = await Engine.create({ root: workspace, latheHome: path.join(base, "lathe-home") });
  serve = await startServe({ engine, port: 0, rendererDir });
  hostHeader = `127.0.0.1:${serve.port}`;
  origin = `http://${hostHeader}`;
});

afterAll(async () => {
  await serve?.close();
  await engine?.close();
  await rm(base, { recursive: true, force: true });
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with the path sent exactly as given (no client-side normalisation). */
function raw(rawPath: string, headers: Record<string, string> = {}, method = "GET"): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: serve.port,
        path: rawPath,
        method,
        headers: { host: hostHeader, ...headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The HTTP status a WebSocket upgrade gets: 101 when accepted. */
function upgradeStatus(url: string, options: ClientOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const ws = new WebSocket(url, options);
    ws.on("open", () => {
      settled = true;
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (req, res) => {
      settled = true;
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    ws.on("error", (error) => {
      if (!settled) reject(error);
    });
  });
}

/** The body of a refused upgrade (what a person reading the socket's failure sees). */
function upgradeBody(url: string, options: ClientOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.on("open", () => {
      ws.close();
      reject(new Error("the upgrade was accepted"));
    });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      res.on("end", () => resolve(body));
    });
    ws.on("error", reject);
  });
}

function wsUrl(query: string, pathname = "/api"): string {
  return `ws://127.0.0.1:${serve.port}${pathname}${query}`;
}

function openSocket(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(`?token=${serve.token}`), { origin });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** Wait until a frame matching `match` has arrived on a socket whose frames are being collected. */
async function waitForFrame(
  frames: unknown[],
  match: (frame: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const find = () =>
    frames.find((f) => match(f as Record<string, unknown>)) as Record<string, unknown> | undefined;
  await expect.poll(() => find() !== undefined, { timeout: 5_000 }).toBe(true);
  return find() as Record<string, unknown>;
}

/** The next answer to a request on the socket; pushes (frames with an `event`) are skipped. */
function nextMessage(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer): void => {
      const frame = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
      if ("event" in frame) return;
      ws.off("message", onMessage);
      resolve(frame);
    };
    ws.on("message", onMessage);
  });
}

describe("startServe", () => {
  it("prints a loopback URL carrying a long random token", () => {
    expect(serve.port).toBeGreaterThan(0);
    expect(serve.token).toMatch(/^[0-9a-f]{64}$/);
    expect(serve.url).toBe(`http://127.0.0.1:${serve.port}/?token=${serve.token}`);
  });

  it("serves the page to the token URL, with a strict cookie for its assets", async () => {
    const page = await raw(`/?token=${serve.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toBe(PAGE);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    const cookie = String(page.headers["set-cookie"]);
    const [, assetKey = ""] = /^lathe_token_\d+=([0-9a-f]{64});/.exec(cookie) ?? [];
    expect(cookie).toContain(`lathe_token_${serve.port}=${assetKey};`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");

    const asset = await raw("/assets/app.js", { cookie: `lathe_token_${serve.port}=${assetKey}` });
    expect(asset.status).toBe(200);
    expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(asset.headers["x-content-type-options"]).toBe("nosniff");
    expect(asset.body).toBe("console.log('app');");
  });

  it("puts a key for the page's files in its cookie, never the token, so a leaked cookie opens no API", async () => {
    // A browser sends 127.0.0.1's cookies to every port of it: any local web server the person
    // visits reads this cookie. It must not be the key to the API.
    const page = await raw(`/?token=${serve.token}`);
    const cookie = String(page.headers["set-cookie"]);
    expect(cookie).not.toContain(serve.token);
    const [, assetKey = ""] = /^lathe_token_\d+=([0-9a-f]{64});/.exec(cookie) ?? [];
    expect(assetKey).not.toBe("");
    expect((await raw("/assets/app.js", { cookie: `lathe_token_${serve.port}=${assetKey}` })).status).toBe(
      200,
    );
    expect(await upgradeStatus(wsUrl(`?token=${assetKey}`), { origin })).toBe(403);
    // The token itself, in a cookie, is no key to the files either: only the page's own cookie is.
    expect((await raw("/assets/app.js", { cookie: `lathe_token_${serve.port}=${serve.token}` })).status).toBe(
      403,
    );
  });

  it.each([
    { name: "the page without a token", path: "/", headers: {}, status: 401 },
    { name: "an asset without a token", path: "/assets/app.js", headers: {}, status: 401 },
    { name: "the page with a wrong token", path: "/?token=0123456789abcdef", headers: {}, status: 403 },
    { name: "an empty token", path: "/?token=", headers: {}, status: 403 },
    {
      name: "an asset with a wrong cookie",
      path: "/assets/app.js",
      headers: { cookie: "lathe_token_1=x" },
      status: 401,
    },
    {
      name: "an asset with this port's cookie but a wrong value",
      path: "/assets/app.js",
      headers: { cookie: "" },
      cookieValue: "f".repeat(64),
      status: 403,
    },
    {
      name: "another Host (DNS rebinding)",
      path: "/?token=TOKEN",
      headers: { host: "evil.example:80" },
      status: 403,
    },
    {
      name: "the name localhost as Host",
      path: "/?token=TOKEN",
      headers: { host: "localhost:PORT" },
      status: 403,
    },
  ])("refuses $name with $status and serves nothing", async ({ path: p, headers, status, cookieValue }) => {
    const sent: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) sent[k] = v.replace("PORT", String(serve.port));
    if (cookieValue) sent["cookie"] = `lathe_token_${serve.port}=${cookieValue}`;
    const res = await raw(p.replace("TOKEN", serve.token), sent);
    expect(res.status).toBe(status);
    expect(res.body).not.toContain("Lathe test page");
    expect(res.body).toMatch(/lathe serve: access/);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("tells a person who typed another name for the address which one to open, not that the token is wrong", async () => {
    for (const host of [`localhost:${serve.port}`, "evil.example:80"]) {
      const res = await raw(`/?token=${serve.token}`, { host });
      expect(res.status).toBe(403);
      expect(res.body).toMatch(
        new RegExp(`answers only at http://127\\.0\\.0\\.1:${serve.port}/, the address it printed`),
      );
      expect(res.body).not.toMatch(/token is wrong/);
      expect(res.body).not.toContain(serve.token);
    }
    // The socket says the same.
    const socket = await upgradeBody(wsUrl(`?token=${serve.token}`), {
      origin,
      headers: { host: `localhost:${serve.port}` },
    });
    expect(socket).toMatch(/answers only at http:\/\/127\.0\.0\.1:\d+\/, the address it printed/);
  });

  it.each([
    "/../secret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e/%2e%2e/secret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
    `/${"..%2f".repeat(12)}etc%2fpasswd`,
    "/index.html%00.js",
  ])("never serves a file outside the renderer for %s", async (attempt) => {
    const sep = attempt.includes("?") ? "&" : "?";
    const res = await raw(`${attempt}${sep}token=${serve.token}`);
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain("root:");
  });

  it("answers only GET and HEAD", async () => {
    expect((await raw(`/?token=${serve.token}`, {}, "POST")).status).toBe(405);
    const head = await raw(`/?token=${serve.token}`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });
});

describe("the API WebSocket", () => {
  it.each([
    { name: "no token", query: "", options: () => ({ origin }), status: 401 },
    { name: "a wrong token", query: "?token=abc", options: () => ({ origin }), status: 403 },
    { name: "no Origin", query: "?token=TOKEN", options: () => ({}), status: 403 },
    {
      name: "another origin",
      query: "?token=TOKEN",
      options: () => ({ origin: "http://evil.example" }),
      status: 403,
    },
    {
      name: "another port's origin",
      query: "?token=TOKEN",
      options: () => ({ origin: `http://127.0.0.1:${serve.port + 1}` }),
      status: 403,
    },
    { name: "the null origin", query: "?token=TOKEN", options: () => ({ origin: "null" }), status: 403 },
    {
      name: "only the cookie",
      query: "",
      options: () => ({ origin, headers: { cookie: `lathe_token_${serve.port}=${serve.token}` } }),
      status: 401,
    },
    { name: "another path", query: "?token=TOKEN", options: () => ({ origin }), path: "/other", status: 404 },
    {
      name: "a malformed tab id",
      query: "?token=TOKEN&tab=..%2Fx",
      options: () => ({ origin }),
      status: 400,
    },
    { name: "a tab id too short", query: "?token=TOKEN&tab=abc", options: () => ({ origin }), status: 400 },
  ])("refuses an upgrade with $name ($status)", async ({ query, options, status, path: p }) => {
    expect(await upgradeStatus(wsUrl(query.replace("TOKEN", serve.token), p), options())).toBe(status);
  });

  it("holds back a page that floods requests and never reads the answers, and serves the others meanwhile", async () => {
    const flooder = await openSocket();
    const other = await openSocket();
    try {
      // The page stops reading; its requests keep coming (each answer is the whole tool list).
      (flooder as unknown as { _socket: { pause(): void } })._socket.pause();
      const before = process.memoryUsage().rss;
      const requests = 20_000;
      for (let id = 0; id < requests; id++) flooder.send(JSON.stringify({ id, channel: "tools.list" }));
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      const started = Date.now();
      other.send(JSON.stringify({ id: 1, channel: "project.status" }));
      expect(WsResponseSchema.parse(await nextMessage(other)).result.ok).toBe(true);
      const waited = Date.now() - started;
      // Without backpressure every answer waits in memory (hundreds of MB), and the other page waits behind them.
      const held = process.memoryUsage().rss - before;
      expect(held).toBeLessThan(100 * 1024 * 1024);
      expect(waited).toBeLessThan(2_000);

      // Once it reads again, it gets every answer.
      const ids: number[] = [];
      const all = new Promise<void>((resolve) =>
        flooder.on("message", (data: Buffer) => {
          const frame = JSON.parse(data.toString("utf8")) as { id?: number };
          if (frame.id !== undefined) ids.push(frame.id);
          if (ids.length === requests) resolve();
        }),
      );
      (flooder as unknown as { _socket: { resume(): void } })._socket.resume();
      await all;
      expect(ids.sort((a, b) => a - b)).toEqual([...Array(requests).keys()]);
    } finally {
      flooder.close();
      other.close();
    }
  }, 60_000);

  it("lists the tools and runs glob through the router", async () => {
    const ws = await openSocket();
    try {
      ws.send(JSON.stringify({ id: 1, channel: "tools.list" }));
      const list = WsResponseSchema.parse(await nextMessage(ws));
      expect(list.id).toBe(1);
      if (!list.result.ok) throw new Error(list.result.error.message);
      const tools = ToolInfoSchema.array().parse(list.result.data);
      expect(tools.find((t) => t.id === "glob")?.origin).toEqual({ layer: "builtin", kind: "builtin" });

      ws.send(
        JSON.stringify({
          id: 2,
          channel: "tools.call",
          payload: { toolId: "glob", args: { pattern: "**/*.ts" } },
        }),
      );
      const call = WsResponseSchema.parse(await nextMessage(ws));
      expect(call.id).toBe(2);
      if (!call.result.ok) throw new Error(call.result.error.message);
      const envelope = EnvelopeSchema.parse(call.result.data);
      expect(envelope.type).toBe("output");
      if (envelope.type === "output") {
        expect([...(envelope.data as { files: string[] }).files].sort()).toEqual([
          "src/alpha.ts",
          "src/beta.ts",
        ]);
      }
    } finally {
      ws.close();
    }
  });

  it("answers a bad payload with ok: false and keeps the socket open", async () => {
    const ws = await openSocket();
    try {
      ws.send(JSON.stringify({ id: 7, channel: "tools.call", payload: { toolId: 3 } }));
      expect(await nextMessage(ws)).toMatchObject({ id: 7, result: { ok: false } });
      ws.send(JSON.stringify({ id: 8, channel: "tools.nope", payload: {} }));
      expect(await nextMessage(ws)).toMatchObject({ id: 8, result: { ok: false } });
      ws.send(
        JSON.stringify({ id: 9, channel: "approval.respond", payload: { id: "nope", answer: "once" } }),
      );
      expect(await nextMessage(ws)).toMatchObject({
        id: 9,
        result: { ok: false, error: { message: expect.stringMatching(/no approval prompt "nope"/) } },
      });
      ws.send(JSON.stringify({ id: 10, channel: "approval.respond", payload: { id: "x", answer: "yes" } }));
      expect(await nextMessage(ws)).toMatchObject({ id: 10, result: { ok: false } });
    } finally {
      ws.close();
    }
  });

  it("pushes the approval prompt over the socket and runs the write only after 'once'", async () => {
    const ws = await openSocket();
    const frames: unknown[] = [];
    ws.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString("utf8"))));
    try {
      ws.send(
        JSON.stringify({
          id: 1,
          channel: "tools.call",
          payload: { toolId: "write", args: { path: "out/approved.txt", content: "yes" } },
        }),
      );
      const prompt = await waitForFrame(frames, (f) => f.event === "approval.requested");
      const request = ApprovalRequestSchema.parse(prompt.payload);
      expect(request).toMatchObject({
        toolId: "write",
        origin: { layer: "builtin", kind: "builtin" },
        args: { path: "out/approved.txt", content: "yes" },
      });
      expect(existsSync(path.join(workspace, "out", "approved.txt"))).toBe(false);
      ws.send(
        JSON.stringify({ id: 2, channel: "approval.respond", payload: { id: request.id, answer: "once" } }),
      );
      const answer = await waitForFrame(frames, (f) => f.id === 1);
      expect(answer).toMatchObject({ result: { ok: true, data: { type: "output" } } });
      expect(await readFile(path.join(workspace, "out", "approved.txt"), "utf8")).toBe("yes");
      // Only this call's pushes: the extensions watch may report on its own schedule meanwhile.
      const events = frames
        .map((f) => (f as { event?: string }).event)
        .filter((e) => e !== undefined && /^(tool|approval)\./.test(e));
      // The call says it waits for the answer, and that it runs once answered.
      expect(events).toEqual([
        "tool.started",
        "tool.phase",
        "approval.requested",
        "approval.settled",
        "tool.phase",
        "tool.finished",
      ]);
      const phases = frames
        .filter((f) => (f as { event?: string }).event === "tool.phase")
        .map((f) => (f as { payload: { phase: string } }).payload.phase);
      expect(phases).toEqual(["awaiting-approval", "running"]);
    } finally {
      ws.close();
    }
  });

  it("rejects the pending approval when the socket closes; the file is never written", async () => {
    const ws = await openSocket();
    const frames: unknown[] = [];
    ws.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString("utf8"))));
    ws.send(
      JSON.stringify({
        id: 1,
        channel: "tools.call",
        payload: { toolId: "write", args: { path: "out/abandoned.txt", content: "no" } },
      }),
    );
    await waitForFrame(frames, (f) => f.event === "approval.requested");
    const closed = new Promise((resolve) => ws.once("close", resolve));
    ws.close();
    await closed;
    // A round trip on a new socket gives the server time to see the close and end the call.
    const other = await openSocket();
    try {
      other.send(
        JSON.stringify({
          id: 1,
          channel: "tools.call",
          payload: { toolId: "glob", args: { pattern: "out/*" } },
        }),
      );
      const listed = WsResponseSchema.parse(await nextMessage(other));
      expect(listed.result).toMatchObject({ ok: true, data: { type: "output" } });
      const files = ((listed.result as { data: { data: { files: string[] } } }).data.data.files ?? []).sort();
      expect(files).not.toContain("out/abandoned.txt");
      expect(existsSync(path.join(workspace, "out", "abandoned.txt"))).toBe(false);
    } finally {
      other.close();
    }
  });

  it.each([
    { name: "text that is not JSON", frame: "hello" },
    { name: "a frame without an id", frame: JSON.stringify({ channel: "tools.list" }) },
    { name: "a binary frame", frame: Buffer.from([1, 2, 3]) },
  ])("closes the socket on $name", async ({ frame }) => {
    const ws = await openSocket();
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(frame);
    expect([1003, 1008]).toContain(await closed);
  });
});

describe("the tab a socket is", () => {
  const TAB = "tab-of-one-browser-tab";

  /** A socket presenting tab id `tab`, collecting every frame; `autoPong: false` is a page gone silent. */
  async function openTab(tab: string | undefined, options: ClientOptions = {}) {
    const frames: unknown[] = [];
    const ws = new WebSocket(wsUrl(`?token=${serve.token}${tab === undefined ? "" : `&tab=${tab}`}`), {
      origin,
      ...options,
    });
    ws.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString("utf8"))));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const assigned = async () =>
      ((await waitForFrame(frames, (f) => f["event"] === "tab.assigned"))["payload"] as { tabId: string })
        .tabId;
    return { ws, frames, assigned };
  }

  it("keeps the id a tab presents, and gives a fresh one to another socket presenting it while the first answers", async () => {
    const first = await openTab(TAB);
    expect(await first.assigned()).toBe(TAB);
    const duplicate = await openTab(TAB);
    const fresh = await duplicate.assigned();
    expect(fresh).not.toBe(TAB);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    const none = await openTab(undefined);
    expect(await none.assigned()).not.toBe(TAB);
    expect(first.ws.readyState).toBe(WebSocket.OPEN);
    for (const socket of [first, duplicate, none]) socket.ws.close();
  });

  it("hands the id to a new socket when the one holding it no longer answers (its page is gone), and cuts that one off", async () => {
    const silent = await openTab(TAB, { autoPong: false });
    expect(await silent.assigned()).toBe(TAB);
    const closed = new Promise((resolve) => silent.ws.once("close", resolve));
    const reloaded = await openTab(TAB);
    expect(await reloaded.assigned()).toBe(TAB);
    await closed;
    reloaded.ws.close();
  });

  it("hands the id to a new socket at once when the old one has closed", async () => {
    const old = await openTab(TAB);
    expect(await old.assigned()).toBe(TAB);
    await new Promise((resolve) => {
      old.ws.once("close", resolve);
      old.ws.close();
    });
    const reloaded = await openTab(TAB);
    expect(await reloaded.assigned()).toBe(TAB);
    reloaded.ws.close();
  });
});

describe("the browser client (ws-api)", () => {
  const connect = (url: string) => new WebSocket(url, { origin }) as unknown as WebSocketLike;

  it("speaks the same API as the preload", async () => {
    const api = createWsApi(wsApiUrl(serve.url, serve.token), { connect });
    const list = await api.tools.list();
    expect(list.ok && list.data.map((t) => t.id)).toContain("glob");
    const call = await api.tools.call({ toolId: "glob", args: { pattern: "src/alpha.ts" } });
    expect(call).toMatchObject({ ok: true, data: { type: "output", data: { files: ["src/alpha.ts"] } } });
    const unknown = await api.tools.call({ toolId: "no_such_tool", args: {} });
    expect(unknown).toMatchObject({ ok: true, data: { type: "error" } });
  });

  it("delivers pushes to subscribers: answer the prompt, see the activity", async () => {
    const api = createWsApi(wsApiUrl(serve.url, serve.token), { connect });
    const prompts: ApprovalRequest[] = [];
    const finished: string[] = [];
    api.on("approval.requested", (prompt) => prompts.push(prompt));
    api.on("tool.finished", (event) => finished.push(`${event.toolId}:${event.envelope.type}`));
    const status = await api.project.status();
    expect(status).toEqual({ ok: true, data: { root: workspace, trusted: false, notices: [] } });

    const call = api.tools.call({ toolId: "write", args: { path: "out/client.txt", content: "c" } });
    await expect.poll(() => prompts.length, { timeout: 5_000 }).toBe(1);
    expect(prompts[0]).toMatchObject({ toolId: "write", args: { path: "out/client.txt", content: "c" } });
    expect(await api.approvals.respond({ id: prompts[0]!.id, answer: "reject" })).toEqual({
      ok: true,
      data: { id: prompts[0]!.id, answer: "reject" },
    });
    expect(await call).toMatchObject({ ok: true, data: { type: "error" } });
    await expect.poll(() => finished).toEqual(["write:error"]);
    expect(existsSync(path.join(workspace, "out", "client.txt"))).toBe(false);
  });

  it("refuses a request too large to send, saying so, and keeps the connection (its prompts wait on)", async () => {
    const lost: Array<string | undefined> = [];
    const api = createWsApi(wsApiUrl(serve.url, serve.token), { connect, onConnection: (l) => lost.push(l) });
    const prompts: ApprovalRequest[] = [];
    api.on("approval.requested", (prompt) => prompts.push(prompt));
    // A call waiting for its approval, as when the person pastes a big file into another call.
    const waiting = api.tools.call({ toolId: "write", args: { path: "out/small.txt", content: "s" } });
    await expect.poll(() => prompts.length, { timeout: 5_000 }).toBe(1);

    // Multi-byte text: the limit is on bytes, not characters.
    for (const content of ["x".repeat(5 * 1024 * 1024), "é".repeat(2_200_000)]) {
      const big = await api.tools.call({ toolId: "write", args: { path: "out/big.txt", content } });
      expect(big.ok).toBe(false);
      if (!big.ok)
        expect(big.error.message).toMatch(/is \d+(\.\d)? MB; lathe serve takes requests of at most 4 MB/);
    }
    expect(lost).toEqual([]);
    expect(await api.approvals.respond({ id: prompts[0]!.id, answer: "once" })).toMatchObject({ ok: true });
    expect(await waiting).toMatchObject({ ok: true, data: { type: "output" } });
    expect(await readFile(path.join(workspace, "out", "small.txt"), "utf8")).toBe("s");
    expect(existsSync(path.join(workspace, "out", "big.txt"))).toBe(false);
  });

  it("reports a refused connection as ok: false instead of throwing", async () => {
    const api = createWsApi(wsApiUrl(serve.url, "wrong"), { connect });
    const answer = await api.tools.list();
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(/could not connect.*token/);
    expect(answer.ok || answer.error.message).not.toContain("wrong");
  });
});

describe("startServe options", () => {
  it("refuses a non-loopback host", async () => {
    await expect(startServe({ engine, port: 0, host: "0.0.0.0", rendererDir })).rejects.toThrow(
      /loopback only/,
    );
  });

  it("says to build first when the renderer is missing", async () => {
    await expect(startServe({ engine, port: 0, rendererDir: path.join(base, "nope") })).rejects.toThrow(
      /npm run build/,
    );
  });

  it("fails with the system's reason when the port is taken", async () => {
    await expect(startServe({ engine, port: serve.port, rendererDir })).rejects.toThrow(/EADDRINUSE/);
  });

  it("stops listening after close", async () => {
    const other = await startServe({ engine, port: 0, rendererDir });
    await other.close();
    await expect(
      upgradeStatus(`ws://127.0.0.1:${other.port}/api?token=${other.token}`, { origin }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
