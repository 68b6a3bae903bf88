import { execFileSync } from "node:child_process";
import http from "node:http";
import https from "node:https";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runLathe, type Run } from "./support/lathe-cli.ts";

// `lathe run` against model servers that answer oddly: what the user reads must say what went
// wrong and never show (or record) the API key the request carried.

/** What the server answers a chat request, given the request's Authorization header. */
type Answer = (authorization: string | undefined) => {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
};

let home: string;
let root: string;
let server: http.Server | undefined;
/** Every chat answer the server sent, to show the damage is there for Lathe to contain. */
let sent: string[];

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-answers-home-"));
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), "lathe-answers-root-")));
  sent = [];
});
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await rm(home, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

/** A loopback server that lists one model and answers every chat request with `answer`. */
async function serve(answer: Answer): Promise<string> {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "m" }] }));
        return;
      }
      const { status, type, body, headers } = answer(req.headers.authorization);
      sent.push(body);
      res.writeHead(status, { "content-type": type, ...headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
}

/** Every file under LATHE_HOME (the session store among them) that holds `text`. */
async function filesHolding(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(home, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file)).includes(text)) found.push(path.relative(home, file));
  }
  return found;
}

const lathe = (args: string[], env: Record<string, string>): Promise<Run> =>
  runLathe(args, { home, cwd: root, env });

describe("an API key a model server echoes back in its error", () => {
  const ECHO: Answer = (authorization) => ({
    status: 401,
    type: "application/json",
    body: JSON.stringify({ error: { message: `Invalid credentials: ${authorization ?? "none"}` } }),
  });

  it.each([
    {
      name: "a cloud key of the vendor's shape (OpenAI at a base URL of settings)",
      provider: "openai",
      model: "openai:gpt-5",
      variable: "OPENAI_API_KEY",
      key: "sk-proj-Zq8rT1vX4bN7mK2pL9sD3fG6hJ0wE5yU",
    },
    {
      name: "a self-hosted server's key of no known shape (providers.<name>.apiKeyEnv)",
      provider: "openai-compatible",
      model: "openai-compatible:m",
      variable: "MY_VLLM_KEY",
      key: "correct-horse-battery-staple",
    },
  ])("$name: neither shown nor recorded", async ({ provider, model, variable, key }) => {
    const baseURL = await serve(ECHO);
    const endpoint = provider === "openai" ? { baseURL } : { baseURL, apiKeyEnv: variable };
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { [provider]: endpoint } }),
    );
    const env = { [variable]: key };

    const text = await lathe(["run", "Hello", "--model", model], env);
    const json = await lathe(["run", "Hello", "--model", model, "--json"], env);

    // Positive control: the server did send the key back.
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.every((body) => body.includes(key))).toBe(true);
    for (const run of [text, json]) {
      expect(run.code).toBe(1);
      expect(run.stderr + run.stdout).toContain("401: Invalid credentials: Bearer [REDACTED]");
      expect(run.stderr + run.stdout).not.toContain(key);
    }
    expect(await filesHolding(key)).toEqual([]);
    const replay = await lathe(["run", "--resume", /s-[a-z0-9-]+/.exec(text.stderr)![0], "--replay"], env);
    expect(replay.stdout + replay.stderr).toContain("[REDACTED]");
    expect(replay.stdout + replay.stderr).not.toContain(key);
  });
});

describe("a server that answers 200 with something other than a stream of events", () => {
  const PAGE =
    "<!doctype html><html><head><title>My Dashboard</title></head><body><div id=app></div></body></html>";
  it.each([
    {
      name: "a web page (the base URL points at a web app, not the API)",
      answer: { status: 200, type: "text/html; charset=utf-8", body: PAGE },
      says: [
        "answered with a web page, not a model's answer",
        "My Dashboard",
        'providers["openai-compatible"].baseURL',
        "usually ends in /v1",
      ],
    },
    {
      name: "an error as JSON with status 200 (a proxy's)",
      answer: {
        status: 200,
        type: "application/json",
        body: JSON.stringify({ error: { message: "Upstream model gpt-x is overloaded" } }),
      },
      says: ["answered with an error instead of a model's answer: Upstream model gpt-x is overloaded"],
    },
    {
      name: "a whole answer as JSON, not streamed",
      answer: {
        status: 200,
        type: "application/json",
        body: JSON.stringify({
          choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
        }),
      },
      says: ["answered with one whole JSON answer instead of streaming it", '"stream": true'],
    },
  ])("$name: says what came back and what to fix, not that the server crashed", async ({ answer, says }) => {
    const baseURL = await serve(() => answer);
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const text = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    const json = await lathe(["run", "Hello", "--model", "openai-compatible:m", "--json"], {});

    expect(text.code).toBe(1);
    for (const words of says) expect(text.stderr).toContain(words);
    expect(text.stderr).not.toContain("crashed");
    expect(json.code).toBe(1);
    const error = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: string; cause?: string })
      .find((event) => event.type === "error");
    expect(error?.message).toContain(says[0]);
    // Not a dropped connection: continuing as it is would meet the same answer.
    expect(error?.cause).toBeUndefined();
  });
});

describe("a cloud provider at a base URL of settings that answers with a web page", () => {
  it("names the provider, the page and the setting to check, not a crash", async () => {
    const page = "<!doctype html><html><head><title>Proxy sign-in</title></head><body></body></html>";
    const baseURL = await serve(() => ({ status: 200, type: "text/html", body: page }));
    await writeFile(path.join(home, "settings.json"), JSON.stringify({ providers: { openai: { baseURL } } }));
    const run = await lathe(["run", "Hello", "--model", "openai:gpt-5"], { OPENAI_API_KEY: "sk-test" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`OpenAI at ${baseURL} answered with a web page, not a model's answer`);
    expect(run.stderr).toContain("Proxy sign-in");
    expect(run.stderr).toContain(`check providers.openai.baseURL (now ${baseURL})`);
    expect(run.stderr).not.toContain("crashed");
  });
});

describe("a base URL that misses the API's path", () => {
  /** A server whose API lives under /v1 only, as Ollama's, vLLM's and LM Studio's do. */
  async function serveUnderV1(
    chat404: string | undefined,
    elsewhere: { type: string; body: string } = { type: "text/plain", body: "404 page not found" },
  ): Promise<string> {
    const base = await serve(() =>
      chat404 === undefined
        ? { status: 200, type: "text/event-stream", body: "" }
        : { status: 404, type: "application/json", body: chat404 },
    );
    const inner = server!.listeners("request")[0] as http.RequestListener;
    server!.removeAllListeners("request");
    server!.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.url?.startsWith("/v1/")) return inner(req, res);
      req.resume();
      res.writeHead(404, { "content-type": elsewhere.type });
      res.end(elsewhere.body);
    });
    return base;
  }

  it.each([
    { name: "no /v1 at all", suffix: "" },
    { name: "a trailing slash but no /v1", suffix: "/" },
    { name: "another path", suffix: "/api" },
  ])("$name: the 404 names the address asked and the setting to correct", async ({ suffix }) => {
    const v1 = await serveUnderV1(undefined);
    const baseURL = v1.replace(/\/v1$/, suffix);
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    const chatURL = `${baseURL.replace(/\/+$/, "")}/chat/completions`;
    expect(run.stderr).toContain(`has no chat API at ${chatURL} (HTTP 404: 404 page not found)`);
    expect(run.stderr).toContain('correct providers["openai-compatible"].baseURL');
    expect(run.stderr).toContain("usually ends in /v1");
  });

  it('a server that says its 404 in JSON (vLLM\'s FastAPI: {"detail":"Not Found"}): the 404 still names the setting to correct', async () => {
    const v1 = await serveUnderV1(undefined, { type: "application/json", body: '{"detail":"Not Found"}' });
    const baseURL = v1.replace(/\/v1$/, "");
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `has no chat API at ${baseURL}/chat/completions (HTTP 404: {"detail":"Not Found"})`,
    );
    expect(run.stderr).toContain('correct providers["openai-compatible"].baseURL');
    expect(run.stderr).toContain("usually ends in /v1");
  });

  it("a 404 the API itself sends (a model it does not have) is told as the server said it, with no hint about the address", async () => {
    const baseURL = await serveUnderV1(
      JSON.stringify({ error: { message: "The model `m` does not exist.", code: "model_not_found" } }),
    );
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("answered HTTP 404: The model `m` does not exist.");
    expect(run.stderr).not.toContain("/v1.");
  });
});

describe("a server that refuses the request", () => {
  const REFUSE =
    (status: number, headers: Record<string, string> = {}): Answer =>
    () => ({
      status,
      type: "application/json",
      body: JSON.stringify({ error: { message: status === 429 ? "Rate limit reached" : "Unauthorized" } }),
      headers,
    });

  it.each<{
    name: string;
    provider: string;
    model: string;
    endpoint: object;
    env: Record<string, string>;
    says: string;
  }>([
    {
      name: "a local server asking for a key no setting names",
      provider: "openai-compatible",
      model: "openai-compatible:m",
      endpoint: {},
      env: {},
      says: 'set providers["openai-compatible"].apiKeyEnv to the environment variable that holds its API key',
    },
    {
      name: "a local server refusing the key of apiKeyEnv",
      provider: "vllm",
      model: "vllm:m",
      endpoint: { apiKeyEnv: "MY_VLLM_KEY" },
      env: { MY_VLLM_KEY: "not-the-right-key-42" },
      says: "check that MY_VLLM_KEY holds a key it accepts",
    },
    {
      name: "a cloud provider refusing its key",
      provider: "openai",
      model: "openai:gpt-5",
      endpoint: {},
      env: { OPENAI_API_KEY: "sk-proj-wrongwrongwrong0123456789" },
      says: "check the key in OPENAI_API_KEY",
    },
  ])("HTTP 401, $name: says which key to check", async ({ provider, model, endpoint, env, says }) => {
    const baseURL = await serve(REFUSE(401));
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { [provider]: { baseURL, ...endpoint } } }),
    );
    const run = await lathe(["run", "Hello", "--model", model], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("HTTP 401");
    expect(run.stderr).toContain("Unauthorized");
    expect(run.stderr).toContain(says);
  });
});

describe("a server that limits the rate", () => {
  type Headers = Record<string, string>;
  const LIMITED =
    (headers: Headers | (() => Headers)): Answer =>
    () => ({
      status: 429,
      type: "application/json",
      body: JSON.stringify({ error: { message: "Rate limit reached" } }),
      headers: typeof headers === "function" ? headers() : headers,
    });

  it.each<{ name: string; headers: Headers | (() => Headers); says: string }>([
    { name: "Retry-After in seconds", headers: { "retry-after": "120" }, says: "it asks to wait 120 s" },
    {
      name: "Retry-After in milliseconds",
      headers: { "retry-after-ms": "90000" },
      says: "it asks to wait 90 s",
    },
    {
      name: "Retry-After as a date",
      // Made as the server answers: made with the table, it was a minute old when the busy
      // machine reached this test, and the wait it asked for read 9 min.
      headers: () => ({ "retry-after": new Date(Date.now() + 600_000).toUTCString() }),
      says: "it asks to wait 10 min",
    },
    { name: "no Retry-After", headers: {}, says: "wait a while" },
  ])("HTTP 429 with $name: says how long to wait before going on", async ({ headers, says }) => {
    const baseURL = await serve(LIMITED(headers));
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("answered HTTP 429");
    expect(run.stderr).toContain("Rate limit reached");
    expect(run.stderr).toContain(says);
    expect(run.stderr).toContain("lathe run --resume");
  });
});

describe("a stream that fails after some text", () => {
  const event = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: object, finish: string | null = null): string =>
    event({
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const begun = chunk({ role: "assistant", content: "The answer beg" });

  it.each([
    {
      name: "an error event mid-answer",
      body: begun + event({ error: { message: "upstream overloaded", code: 500 } }),
      says: "sent an error in place of the rest of its answer: upstream overloaded",
    },
    {
      name: "[DONE] without a finish reason",
      body: `${begun}data: [DONE]\n\n`,
      says: "before it was complete",
    },
  ])("$name: the text so far is marked cut off, live and in the replay", async ({ body, says }) => {
    const baseURL = await serve(() => ({ status: 200, type: "text/event-stream", body }));
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const events = (run: Run): Array<{ type: string; text?: string; cutOff?: boolean; message?: string }> =>
      run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string });

    const live = await lathe(["run", "Hello", "--model", "openai-compatible:m", "--json"], {});
    expect(live.code).toBe(1);
    const liveEvents = events(live);
    expect(liveEvents.find((e) => e.type === "error")?.message).toContain(says);
    expect(liveEvents.filter((e) => e.type === "text").at(-1)).toMatchObject({ text: "", cutOff: true });

    const id = (liveEvents[0] as unknown as { sessionId: string }).sessionId;
    const replay = await lathe(["run", "--resume", id, "--replay", "--json"], {});
    expect(events(replay).filter((e) => e.type === "text")).toEqual([
      expect.objectContaining({ text: "The answer beg", cutOff: true }),
    ]);

    const human = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(human.stdout).toContain("The answer beg");
    expect(human.stderr).toContain("[the text above was cut off here");
  });
});

describe("an address fetch cannot use as it is", () => {
  const settings = (baseURL: string): Promise<void> =>
    writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );

  it("https:// for a server that speaks plain http: says to write http://, not 'fetch failed'", async () => {
    const baseURL = await serve(() => ({ status: 200, type: "text/event-stream", body: "" }));
    const tls = baseURL.replace("http://", "https://");
    await settings(tls);
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/^error: fetch failed$/m);
    expect(run.stderr).toContain("does not speak TLS");
    expect(run.stderr).toContain(`write the address with http:// in providers["openai-compatible"].baseURL`);
  });

  it("https:// with a self-signed certificate: names the certificate problem and NODE_EXTRA_CA_CERTS", async () => {
    const key = path.join(home, "key.pem");
    const cert = path.join(home, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    const tlsServer = https.createServer(
      { key: await readFile(key), cert: await readFile(cert) },
      (req, res) => {
        req.resume();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data: [{ id: "m" }] }));
      },
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
    try {
      await settings(`https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/v1`);
      const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("its TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT");
      expect(run.stderr).toContain("NODE_EXTRA_CA_CERTS");
    } finally {
      tlsServer.closeAllConnections();
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  it("a user name and password in the base URL: says to take them out, and never shows the password", async () => {
    const baseURL = await serve(() => ({ status: 200, type: "text/event-stream", body: "" }));
    await settings(baseURL.replace("http://", "http://admin:hunter2secret@"));
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('providers["openai-compatible"].baseURL holds a user name and password');
    expect(run.stderr).toContain("apiKeyEnv");
    expect(run.stderr + run.stdout).not.toContain("hunter2secret");
  });
});

describe("a streamed answer whose piece does not fit the chat format", () => {
  it("a tool call's arguments sent as an object, not a string: says which part, not that the address is wrong", async () => {
    const chunk = {
      id: "c",
      object: "chat.completion.chunk",
      choices: [
        {
          index: 0,
          delta: {
            role: "assistant",
            tool_calls: [
              { index: 0, id: "c1", type: "function", function: { name: "read", arguments: { path: "a" } } },
            ],
          },
          finish_reason: null,
        },
      ],
    };
    const baseURL = await serve(() => ({
      status: 200,
      type: "text/event-stream",
      body: `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`,
    }));
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { "openai-compatible": { baseURL } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "openai-compatible:m"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("sent a piece of its answer that does not fit the chat completions format");
    expect(run.stderr).toContain("choices.0.delta.tool_calls.0.function.arguments");
    expect(run.stderr).not.toContain("/v1");
  });
});

describe("a server that refuses the key already when asked for its models", () => {
  it.each<{ name: string; endpoint: object; env: Record<string, string>; says: string }>([
    {
      name: "no key set",
      endpoint: {},
      env: {},
      says: 'set providers["vllm"].apiKeyEnv to the environment variable',
    },
    {
      name: "the key of apiKeyEnv refused",
      endpoint: { apiKeyEnv: "MY_VLLM_KEY" },
      env: { MY_VLLM_KEY: "not-the-right-key-42" },
      says: "check that MY_VLLM_KEY holds a key it accepts",
    },
  ])("$name: says which key to check", async ({ endpoint, env, says }) => {
    const baseURL = await serve(() => ({
      status: 401,
      type: "application/json",
      body: '{"error":"Unauthorized"}',
    }));
    // Every route refuses, the model list too.
    const inner = server!.listeners("request")[0] as http.RequestListener;
    server!.removeAllListeners("request");
    server!.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!req.url?.endsWith("/models")) return inner(req, res);
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end('{"error":"Unauthorized"}');
    });
    await writeFile(
      path.join(home, "settings.json"),
      JSON.stringify({ providers: { vllm: { baseURL, ...endpoint } } }),
    );
    const run = await lathe(["run", "Hello", "--model", "vllm:m"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("HTTP 401");
    expect(run.stderr).toContain(says);
  });
});
