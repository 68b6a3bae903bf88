import { chmod, chown, link, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  openPluginWorld,
  plugin,
  writePlugin,
  type PluginWorld,
} from "../../../../test/support/plugin-test-kit.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import type { Envelope } from "../tools/envelope.ts";

let world: PluginWorld | undefined;
let server: Server | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function withPlugins(...plugins: [string, ReturnType<typeof plugin>][]): Promise<PluginWorld> {
  world = await openPluginWorld({
    arrange: async (w) => {
      for (const [folder, files] of plugins) await writePlugin(w.globalDir, folder, files);
    },
  });
  return world;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

async function listen(
  handler: (seen: Seen, res: ServerResponse) => void,
): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, seen };
}

describe("plugin tools through the engine", () => {
  it("publish description + TOOL.md, strict schema, flags and origin", async () => {
    const w = await withPlugins([
      "greeter",
      {
        ...plugin("greet", "return `hello ${args.name}`;", {
          description: "Greet someone by name.",
          input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          readOnly: false,
          gated: true,
          kind: "think",
          defer: true,
          timeoutMs: 4000,
        }),
        md: 'Use greet to say hello.\n\nExample: `{"name": "Ann"}`\n',
      },
    ]);
    const entry = w.engine.registry.get("greet");
    expect(entry?.tool.description).toBe(
      'Greet someone by name.\n\nUse greet to say hello.\n\nExample: `{"name": "Ann"}`',
    );
    expect(entry?.tool.parameters).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    });
    expect(entry?.tool).toMatchObject({
      readOnly: false,
      gated: true,
      kind: "think",
      defer: true,
      timeoutMs: 4000,
      enabled: true,
    });
    expect(entry?.origin).toEqual({ layer: "global", kind: "plugin", name: "greeter" });
    const session = await w.session();
    expect(outputOf(await session.call("greet", { name: "Ann" }))).toBe("hello Ann");
    expect(errorOf(await session.call("greet", { name: "Ann", loud: true }))).toMatch(
      /unknown property "loud"/,
    );
    expect(errorOf(await session.call("greet", {}))).toMatch(/missing required property "name"/);
  });

  it("gives runtime exactly the members requires declares", async () => {
    const body = "return { runtime: Object.keys(runtime).sort(), fs: Object.keys(runtime.fs ?? {}).sort() };";
    const w = await withPlugins(
      ["none", plugin("bare", body)],
      ["reader", plugin("reader", body, { requires: { fs: { read: ["{workspace}/**"] } } })],
      [
        "all",
        plugin("everything", body, {
          requires: {
            fs: { read: ["**"], write: ["**"] },
            net: { hosts: ["127.0.0.1"] },
            shell: [{ cmd: "echo" }],
          },
        }),
      ],
    );
    const session = await w.session();
    expect(outputOf(await session.call("bare", {}))).toEqual({ runtime: ["log"], fs: [] });
    expect(outputOf(await session.call("reader", {}))).toEqual({
      runtime: ["fs", "log"],
      fs: ["list", "readText"],
    });
    expect(outputOf(await session.call("everything", {}))).toEqual({
      runtime: ["fs", "log", "net", "shell"],
      fs: ["list", "readText", "writeText"],
    });
  });

  it("reads, lists and writes workspace files through runtime.fs", async () => {
    const w = await withPlugins([
      "notes",
      plugin(
        "notes",
        `const listed = await runtime.fs.list("notes");
         const first = await runtime.fs.readText("notes/" + listed[0].name);
         const written = await runtime.fs.writeText("out/summary.txt", first.toUpperCase());
         return { listed, written };`,
        { readOnly: false, requires: { fs: { read: ["{workspace}/**"], write: ["{workspace}/out/**"] } } },
      ),
    ]);
    await mkdir(path.join(w.root, "notes", "sub"), { recursive: true });
    await writeFile(path.join(w.root, "notes", "a.md"), "first note");
    const session = await w.session();
    expect(outputOf(await session.call("notes", {}))).toEqual({
      listed: [
        { name: "a.md", type: "file" },
        { name: "sub", type: "dir" },
      ],
      written: { path: "out/summary.txt", bytes: 10 },
    });
    expect(await readFile(path.join(w.root, "out", "summary.txt"), "utf8")).toBe("FIRST NOTE");
  });

  it.each<[string, unknown[]]>([
    ["no rule (control)", []],
    [
      "fs.read deny rules",
      [
        { permission: "fs.read", pattern: "**/.env", action: "deny" },
        { permission: "fs.read", pattern: "secrets/**", action: "deny" },
      ],
    ],
    ["a deny rule on the read tool", [{ permission: "read", pattern: "{.env,secrets}", action: "deny" }]],
    ["the plugin tool's own rule", [{ permission: "lister", pattern: "{.env,secrets}", action: "deny" }]],
  ])("runtime.fs.list names no entry a read deny rule covers: %s", async (name, rules) => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(
          w.globalDir,
          "lister",
          plugin("lister", `return runtime.fs.list(".");`, {
            requires: { fs: { read: ["{workspace}/**"] } },
          }),
        );
        await writeFile(path.join(w.latheHome, "settings.json"), JSON.stringify({ permissions: rules }));
        await mkdir(path.join(w.root, "secrets"));
        await writeFile(path.join(w.root, "secrets", "key.txt"), "k");
        await writeFile(path.join(w.root, ".env"), "TOKEN=x");
        await writeFile(path.join(w.root, "notes.md"), "n");
      },
    });
    const listed = outputOf<{ name: string }[]>(await (await world.session()).call("lister", {}));
    expect(listed.map((e) => e.name)).toEqual(
      rules.length === 0 ? [".env", "notes.md", "secrets"] : ["notes.md"],
    );
  });

  it.each([
    ["no hidden path (control)", false],
    ["a sandbox.denyRead folder in the workspace", true],
  ])("runtime.fs.list names no entry Lathe hides from its tools: %s", async (_name, hide) => {
    world = await openPluginWorld({
      arrange: async (w) => {
        await writePlugin(
          w.globalDir,
          "lister",
          plugin("lister", `return runtime.fs.list(".");`, {
            requires: { fs: { read: ["{workspace}/**"] } },
          }),
        );
        const denyRead = hide ? [path.join(w.root, "vault"), path.join(w.root, "id_key")] : [];
        await writeFile(path.join(w.latheHome, "settings.json"), JSON.stringify({ sandbox: { denyRead } }));
        await mkdir(path.join(w.root, "vault"));
        await writeFile(path.join(w.root, "vault", "key.txt"), "k");
        await writeFile(path.join(w.root, "id_key"), "k");
        await writeFile(path.join(w.root, "notes.md"), "n");
      },
    });
    const listed = outputOf<{ name: string }[]>(await (await world.session()).call("lister", {}));
    expect(listed.map((e) => e.name)).toEqual(hide ? ["notes.md"] : ["id_key", "notes.md", "vault"]);
  });

  it.each([
    ["ASCII", Buffer.from("plain text\n"), "plain text\n"],
    [
      "accents, CJK, emoji and quotes",
      Buffer.from('héllo — 日本語 😀 "q" \\ \t\n'),
      'héllo — 日本語 😀 "q" \\ \t\n',
    ],
    ["bytes that are not UTF-8", Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]), "a\ufffdb\ufffd"],
    ["a large file", Buffer.from("ünïcode line\n".repeat(100_000)), "ünïcode line\n".repeat(100_000)],
  ])("hands readText's text over exactly: %s", async (_name, bytes, expected) => {
    const w = await withPlugins([
      "echo_file",
      plugin("echo_file", "const t = await runtime.fs.readText('f.txt'); return { length: t.length, t };", {
        requires: { fs: { read: ["{workspace}/**"] } },
      }),
    ]);
    await writeFile(path.join(w.root, "f.txt"), bytes);
    const session = await w.session();
    const envelope = await session.call("echo_file", {});
    const full = envelope.metadata.output_path
      ? JSON.parse(await readFile(envelope.metadata.output_path as string, "utf8"))
      : outputOf(envelope);
    expect(full).toEqual({ length: expected.length, t: expected });
  });

  it("fetches declared hosts with method, headers and body, and does not follow redirects", async () => {
    const { port, seen } = await listen((s, res) => {
      if (s.url === "/moved") {
        res.writeHead(302, { location: "http://example.com/" }).end();
        return;
      }
      res
        .writeHead(201, { "content-type": "application/json", "x-answer": "42" })
        .end(JSON.stringify({ got: s.body }));
    });
    const w = await withPlugins([
      "poster",
      plugin(
        "poster",
        `const r = await runtime.net.fetch(args.url, { method: "post", headers: { "x-token": "t" }, body: "ping" });
         const moved = await runtime.net.fetch(args.url + "moved");
         return { status: r.status, answer: r.headers["x-answer"], json: JSON.parse(r.text), moved: moved.status, location: moved.headers.location };`,
        {
          input_schema: { type: "object", properties: { url: { type: "string" } } },
          requires: { net: { hosts: ["127.0.0.1"] } },
        },
      ),
    ]);
    const session = await w.session();
    expect(outputOf(await session.call("poster", { url: `http://127.0.0.1:${port}/` }))).toEqual({
      status: 201,
      answer: "42",
      json: { got: "ping" },
      moved: 302,
      location: "http://example.com/",
    });
    expect(seen.map((s) => [s.method, s.url, s.headers["x-token"] ?? null])).toEqual([
      ["POST", "/", "t"],
      ["GET", "/moved", null],
    ]);
  });

  it("runs a declared command without a shell and returns its exit code and output", async () => {
    const w = await withPlugins([
      "say",
      plugin(
        "say",
        `const ok = await runtime.shell.run("echo", [args.text]);
         const odd = await runtime.shell.run("sh", ["-c", "echo to-stderr >&2; exit 3"]);
         return { ok, odd };`,
        {
          input_schema: { type: "object", properties: { text: { type: "string" } } },
          requires: {
            shell: [
              { cmd: "echo", args: [{ wildcard: true }] },
              { cmd: "sh", args: ["-c", "echo to-stderr >&2; exit 3"] },
              // What the shell code runs is judged too, so its commands are declared as well.
              { cmd: "exit", args: ["3"] },
            ],
          },
        },
      ),
    ]);
    const session = await w.session();
    expect(outputOf(await session.call("say", { text: "$(touch pwned) *" }))).toEqual({
      ok: { exit_code: 0, output: "$(touch pwned) *\n" },
      odd: { exit_code: 3, output: "to-stderr\n" },
    });
    await expect(readFile(path.join(w.root, "pwned"))).rejects.toThrow(/ENOENT/);
  });

  it("returns a command's output as a terminal shows it: escape sequences gone, \\r redraws collapsed", async () => {
    const script = String.raw`printf '\033]0;owned\007\033[31mred\033[0m\n10%%\r100%%\n'; printf '\033[1merr\033[0m\n' >&2`;
    const w = await withPlugins([
      "colours",
      plugin("colours", `return await runtime.shell.run("sh", ["-c", ${JSON.stringify(script)}]);`, {
        input_schema: { type: "object" },
        requires: {
          shell: [
            { cmd: "sh", args: ["-c", script] },
            { cmd: "printf", args: [{ wildcard: true }] },
          ],
        },
      }),
    ]);
    const session = await w.session();
    expect(outputOf(await session.call("colours", {}))).toEqual({ exit_code: 0, output: "red\n100%\nerr\n" });
  });

  it("turns an output_schema mismatch into an error envelope that blames the plugin", async () => {
    const w = await withPlugins([
      "liar",
      plugin("liar", "return args.good ? { count: 3 } : { count: 'three' };", {
        input_schema: { type: "object", properties: { good: { type: "boolean" } } },
        output_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      }),
    ]);
    const session = await w.session();
    expect(outputOf(await session.call("liar", { good: true }))).toEqual({ count: 3 });
    const text = errorOf(await session.call("liar", { good: false }));
    expect(text).toMatch(
      /^liar returned a result that does not match its output_schema: "count" must be integer\./,
    );
    expect(text).toContain(path.join(w.globalDir, "liar", "index.js"));
  });

  it("stops checking a result its output_schema's pattern backtracks on, blaming the plugin, and the event loop runs meanwhile", async () => {
    const w = await withPlugins([
      "namer",
      plugin("namer", "return { name: args.name };", {
        input_schema: { type: "object", properties: { name: { type: "string" } } },
        output_schema: { type: "object", properties: { name: { type: "string", pattern: "^(\\w+\\s?)*$" } } },
      }),
    ]);
    const session = await w.session();
    expect(outputOf(await session.call("namer", { name: "Ada Lovelace" }))).toEqual({ name: "Ada Lovelace" });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = performance.now();
    const envelope = await session.call("namer", {
      name: "Augusta Ada King Countess of Lovelace and daughter of Byron!",
    });
    clearInterval(timer);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(ticks).toBeGreaterThan(10);
    expect(errorOf(envelope)).toMatch(
      /^namer returned a result, but checking it against its output_schema was stopped after 3 s, because the pattern "\^\(\\\\w\+\\\\s\?\)\*\$" in that schema takes too long/,
    );
  }, 30_000);

  it("returns the plugin's thrown message as the error envelope, with the file and line it was thrown at", async () => {
    const w = await withPlugins([
      "picky",
      plugin("picky", "throw new Error('No such user; pass an existing user name.');"),
    ]);
    const session = await w.session();
    // plugin() puts the body on line 2 of index.js: `export async function execute(args, runtime) {`, then it.
    expect(errorOf(await session.call("picky", {}))).toBe(
      `No such user; pass an existing user name. (thrown at ${path.join(w.globalDir, "picky", "index.js")}:2:7)`,
    );
  });

  it("cuts a large result to its head and keeps the whole in a sidecar file", async () => {
    const w = await withPlugins(["big", plugin("big", "return 'line of text\\n'.repeat(50000);")]);
    const session = await w.session();
    const envelope = await session.call("big", {});
    expect(envelope.type).toBe("output");
    expect(envelope.metadata.truncated).toBe(true);
    const data = outputOf<string>(envelope);
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(200 * 1024);
    expect(await readFile(envelope.metadata.output_path as string, "utf8")).toBe(
      "line of text\n".repeat(50000),
    );
  });

  it("checks and cuts a large object result the same way, off the main thread", async () => {
    const w = await withPlugins([
      "many",
      plugin(
        "many",
        "const items = []; for (let i = 0; i < args.n; i++) items.push({ i, name: args.bad && i === args.n - 1 ? 7 : 'item ' + i }); return { items };",
        {
          input_schema: { type: "object", properties: { n: { type: "integer" }, bad: { type: "boolean" } } },
          output_schema: {
            type: "object",
            properties: {
              items: {
                type: "array",
                items: { type: "object", properties: { i: { type: "integer" }, name: { type: "string" } } },
              },
            },
          },
        },
      ),
    ]);
    const session = await w.session();
    const n = 20_000;
    const envelope = await session.call("many", { n });
    expect(envelope.metadata.truncated).toBe(true);
    const head = outputOf<string>(envelope);
    expect(head.startsWith('{\n  "items": [\n    {\n      "i": 0,')).toBe(true);
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(200 * 1024);
    const whole = JSON.parse(await readFile(envelope.metadata.output_path as string, "utf8"));
    expect(whole.items).toHaveLength(n);
    expect(whole.items[n - 1]).toEqual({ i: n - 1, name: `item ${n - 1}` });
    // The last of 20 000 items breaks the schema: found although the result is never parsed here.
    expect(errorOf(await session.call("many", { n, bad: true }))).toMatch(
      new RegExp(
        `^many returned a result that does not match its output_schema: "items\\.${n - 1}\\.name" must be string\\.`,
      ),
    );
  });

  it("gives a call queued behind others of the same plugin its own timeout, not one eaten by the wait", async () => {
    // One isolate runs a plugin's calls one at a time: twelve parallel calls of 300 ms each finish
    // after 3.6 s, past the 3 s a single call of timeoutMs 1000 may take (with the stop grace);
    // each call keeps 700 ms of its own budget for a busy machine.
    const w = await withPlugins([
      "slow",
      plugin("slow", "const end = Date.now() + 300; while (Date.now() < end) {} return args.n;", {
        input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        timeoutMs: 1000,
      }),
    ]);
    const s = await w.session();
    const started = Date.now();
    const calls = Array.from({ length: 12 }, (_, n) => s.call("slow", { n }));
    const envelopes = await Promise.all(calls);
    expect(envelopes.map((e) => (e.type === "error" ? errorOf(e) : outputOf(e)))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    // The control: the queue really did outlast one call's whole budget.
    expect(Date.now() - started).toBeGreaterThan(1000 + PLUGIN_LIMITS.stopGraceMs);
  });

  // runtime.fs.writeText writes as the write tool does (capability/file-replacement.ts): it used to
  // rename a new file over every target, which split a hard link (its other name kept the old
  // text), replaced a read-only file without a word, and gave a file of another user to root.
  const ROOT_USER = process.getuid?.() === 0;
  if (!ROOT_USER) console.log("the owner row is skipped: only root can give a file to another user");
  it.each([
    {
      what: "keeps a hard-linked file one file: its other name sees the new text",
      arrange: (file: string) => link(file, `${file}.other`),
      check: async (file: string, envelope: Envelope) => {
        expect(outputOf(envelope)).toEqual({ path: "memo.txt", bytes: 3 });
        expect(await readFile(`${file}.other`, "utf8")).toBe("new");
        expect((await stat(file)).nlink).toBe(2);
      },
    },
    {
      what: "refuses a read-only file, saying how to make it writable, and leaves it as it was",
      arrange: (file: string) => chmod(file, 0o444),
      check: async (file: string, envelope: Envelope) => {
        expect(errorOf(envelope)).toMatch(/memo\.txt is read-only \(mode 0444\).*chmod u\+w memo\.txt/);
        expect(await readFile(file, "utf8")).toBe("old");
      },
    },
    {
      what: "refuses a file that is another name of one hidden from tools (in $LATHE_HOME), before a byte moves",
      arrange: async (file: string, w: PluginWorld) => {
        await writeFile(path.join(w.latheHome, "private.txt"), "old");
        await rm(file);
        await link(path.join(w.latheHome, "private.txt"), file);
      },
      check: async (file: string, envelope: Envelope, w: PluginWorld) => {
        expect(errorOf(envelope)).toMatch(/memo\.txt" \(a hard link to .*\) is Lathe.s own data/);
        expect(await readFile(path.join(w.latheHome, "private.txt"), "utf8")).toBe("old");
        expect((await stat(file)).nlink).toBe(2);
      },
    },
    ...(ROOT_USER
      ? [
          {
            what: "keeps the owner and group of another user's file",
            arrange: (file: string) => chown(file, 65534, 65534),
            check: async (file: string, envelope: Envelope) => {
              expect(envelope.type).toBe("output");
              expect(await readFile(file, "utf8")).toBe("new");
              expect(await stat(file)).toMatchObject({ uid: 65534, gid: 65534 });
            },
          },
        ]
      : []),
  ])("runtime.fs.writeText $what", async ({ arrange, check }) => {
    const w = await withPlugins([
      "scribe",
      plugin("scribe", "return runtime.fs.writeText('memo.txt', args.text);", {
        readOnly: false,
        input_schema: { type: "object", properties: { text: { type: "string" } } },
        requires: { fs: { write: ["{workspace}/**"] } },
      }),
    ]);
    const file = path.join(w.root, "memo.txt");
    await writeFile(file, "old");
    await arrange(file, w);
    const session = await w.engine.openSession({ mode: "yolo" });
    await check(file, await session.call("scribe", { text: "new" }), w);
  });

  it("asks the approver before a gated plugin's write, and writes only once approved", async () => {
    const w = await withPlugins([
      "scribe",
      plugin("scribe", "return runtime.fs.writeText('memo.txt', args.text);", {
        readOnly: false,
        gated: true,
        input_schema: { type: "object", properties: { text: { type: "string" } } },
        requires: { fs: { write: ["{workspace}/**"] } },
      }),
    ]);
    const asked: string[] = [];
    const session = await w.engine.openSession({
      mode: "ask",
      approver: async (request) => {
        asked.push(request.approvalKey);
        return "once";
      },
    });
    expect(outputOf(await session.call("scribe", { text: "hi" }))).toEqual({ path: "memo.txt", bytes: 2 });
    expect(asked).toEqual(['scribe:{"text":"hi"}', "fs.write:memo.txt"]);
    expect(await readFile(path.join(w.root, "memo.txt"), "utf8")).toBe("hi");
  });
});
