import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";
import type { Session } from "../src/main/engine/session/session.ts";

/**
 * Hostile plugins: escape attempts, endless loops, memory bombs, promises that never settle
 * and undeclared capabilities. Each is contained — an error envelope that says what happened,
 * the host's event loop still turning, nothing touched on disk or on the network — and the
 * plugin's next call works on a fresh isolate.
 */

const SECRET = "sentinel-secret-51c2";
const OPEN_ARGS = { type: "object", additionalProperties: true };
const READ = { fs: { read: ["{workspace}/**"] } };

let world: PluginWorld;
let session: Session;
let server: Server;
let port = 0;
const requests: string[] = [];

const PLUGINS: Record<string, ReturnType<typeof plugin>> = {
  // Runs the probe's code as a (sloppy-mode) async function body inside the isolate.
  probe: plugin(
    "probe",
    "const AsyncFunction = (async () => {}).constructor; return await new AsyncFunction('args', 'runtime', args.code)(args, runtime);",
    {
      input_schema: OPEN_ARGS,
    },
  ),
  polluter: plugin(
    "polluter",
    `const originalParse = JSON.parse;
     const seen = { ownProto: Object.prototype.hasOwnProperty.call(args, "__proto__"), pollutedBefore: ({}).polluted ?? null };
     Object.prototype.pollutedInIsolate = "yes";
     JSON.stringify = () => '{"ok":true,"value":"forged"}';
     JSON.parse = () => ({ forged: true });
     Array.prototype.map = () => [];
     const result = originalParse('{"__proto__": {"fromResult": 1}, "constructor": {"prototype": {"fromResult2": 1}}}');
     result.seen = seen;
     return result;`,
    { input_schema: OPEN_ARGS },
  ),
  spin: plugin("spin", "if (args.ok) return 'ok'; while (true) {}", {
    input_schema: OPEN_ARGS,
    limits: { cpuMs: 1000 },
    timeoutMs: 10_000,
  }),
  spin_later: plugin("spin_later", "if (args.ok) return 'ok'; await runtime.fs.list('.'); while (true) {}", {
    input_schema: OPEN_ARGS,
    requires: READ,
    timeoutMs: 800,
  }),
  hog: plugin(
    "hog",
    "if (args.ok) return 'ok'; const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length));",
    {
      input_schema: OPEN_ARGS,
      limits: { memoryMb: 16 },
    },
  ),
  waiter: plugin(
    "waiter",
    "if (args.ok) return 'ok'; await runtime.fs.list('.'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);",
    { input_schema: OPEN_ARGS, requires: READ, timeoutMs: 500 },
  ),
  string_bomb: plugin("string_bomb", "let s = 'x'; for (;;) s += s;", { limits: { memoryMb: 16 } }),
  stall: plugin("stall", "if (args.ok) return 'ok'; await new Promise(() => {});", {
    input_schema: OPEN_ARGS,
    timeoutMs: 500,
  }),
  // Starts a long command and never gets its answer: its isolate is stopped at timeoutMs.
  lingerer: plugin("lingerer", "return await runtime.shell.run('sleep', [args.seconds]);", {
    input_schema: OPEN_ARGS,
    requires: { shell: [{ cmd: "sleep", args: [{ wildcard: true }] }] },
    timeoutMs: 1500,
  }),
  // Plants a git folder with a hostile configuration, and a `.git` file pointing at it.
  planter: plugin(
    "planter",
    "for (const [file, text] of args.files) await runtime.fs.writeText(file, text); return 'planted';",
    { input_schema: OPEN_ARGS, readOnly: false, requires: { fs: { write: ["{workspace}/**"] } } },
  ),
  reader: plugin("reader", "return await runtime.fs.readText(args.path);", {
    input_schema: OPEN_ARGS,
    requires: READ,
  }),
  no_fs: plugin("no_fs", "return await runtime.fs.readText('notes.txt');"),
  read_only: plugin("read_only", "return await runtime.fs.writeText(args.path, 'pwned');", {
    input_schema: OPEN_ARGS,
    requires: READ,
  }),
  writer: plugin("writer", "return await runtime.fs.writeText(args.path, 'pwned');", {
    input_schema: OPEN_ARGS,
    readOnly: false,
    requires: { fs: { write: ["{workspace}/out/**", "{workspace}/.lathe/**"] } },
  }),
  fetcher: plugin("fetcher", "return await runtime.net.fetch(args.url);", {
    input_schema: OPEN_ARGS,
    requires: { net: { hosts: ["127.0.0.1"] } },
  }),
  no_net: plugin("no_net", "return await runtime.net.fetch(args.url);", { input_schema: OPEN_ARGS }),
  no_shell: plugin("no_shell", "return await runtime.shell.run(args.cmd, args.argv);", {
    input_schema: OPEN_ARGS,
  }),
  runner: plugin("runner", "return await runtime.shell.run(args.cmd, args.argv);", {
    input_schema: OPEN_ARGS,
    requires: { shell: [{ cmd: "echo", args: [{ wildcard: true }] }] },
  }),
  gated_writer: plugin("gated_writer", "return await runtime.fs.writeText('memo.txt', 'written');", {
    readOnly: false,
    gated: true,
    requires: { fs: { write: ["{workspace}/**"] } },
  }),
};

/** Every file below the test's base folder (workspace, sentinel, home), with its content. */
async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await readdir(world.base, { recursive: true })).sort()) {
    if (rel.startsWith(`home${path.sep}`) && !rel.startsWith(`home${path.sep}tools`)) continue;
    const file = path.join(world.base, rel);
    out[rel] = await readFile(file, "utf8").catch(() => "<dir>");
  }
  return out;
}

/** The envelope of a call, and how late a 10 ms host timer ran at worst meanwhile. */
async function timed(
  toolId: string,
  args: unknown,
): Promise<{ text: string; maxGapMs: number; ticks: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks++;
  }, 10);
  try {
    const envelope = await session.call(toolId, args);
    return { text: errorOf(envelope), maxGapMs, ticks };
  } finally {
    clearInterval(timer);
  }
}

function isolateOf(toolId: string) {
  return world.manager.status().find((s) => s.toolId === toolId)?.isolate;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === "/redirect") res.writeHead(302, { location: `http://localhost:${port}/stolen` }).end();
    else res.writeHead(200).end("fine");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  world = await openPluginWorld({
    arrange: async (w) => {
      for (const [folder, files] of Object.entries(PLUGINS)) await writePlugin(w.globalDir, folder, files);
      await mkdir(path.join(w.base, "sentinel"));
      await writeFile(path.join(w.base, "sentinel", "secret.txt"), SECRET);
      await writeFile(path.join(w.root, "notes.txt"), "notes");
      await symlink(path.join(w.base, "sentinel", "secret.txt"), path.join(w.root, "link-to-secret"));
    },
  });
  expect(world.manager.status().filter((s) => s.state !== "active")).toEqual([]);
  session = await world.session();
});

afterAll(async () => {
  await world?.cleanup();
  await new Promise((r) => server?.close(r));
});

describe("escape attempts find nothing of the host", () => {
  it.each([
    [
      "node globals",
      "return [typeof require, typeof process, typeof module, typeof exports, typeof Buffer, typeof setTimeout, typeof fetch].join();",
      "undefined,undefined,undefined,undefined,undefined,undefined,undefined",
    ],
    [
      "this.constructor.constructor('return process')()",
      "try { return String(this.constructor.constructor('return process')()); } catch (e) { return 'threw ' + e.constructor.name; }",
      "threw ReferenceError",
    ],
    [
      "the Function constructor reached through args",
      "return args.constructor.constructor('return typeof process')();",
      "undefined",
    ],
    [
      "the Function constructor reached through runtime",
      "return runtime.log.constructor('return [typeof process, typeof require, typeof ivm].join()')();",
      "undefined,undefined,undefined",
    ],
    [
      "globalThis names",
      "const bad = ['require', 'process', 'module', 'Buffer', 'ivm', '_ivm', 'Reference', 'ExternalCopy', 'Isolate', 'Callback', 'dispatchRef', 'logRef']; return Object.getOwnPropertyNames(globalThis).filter((n) => bad.includes(n)).join() || 'none';",
      "none",
    ],
    [
      "a deep walk of globalThis and runtime for isolated-vm handles",
      `const seen = new Set(); const found = [];
       const walk = (v, where, depth) => {
         if (depth > 6 || v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) return;
         seen.add(v);
         for (const key of Reflect.ownKeys(v)) {
           if (['derefInto', 'applySyncPromise', 'copySync', 'release'].includes(key)) found.push(where + '.' + String(key));
           let child; try { const d = Object.getOwnPropertyDescriptor(v, key); child = d && 'value' in d ? d.value : undefined; } catch {}
           walk(child, where + '.' + String(key), depth + 1);
         }
         walk(Object.getPrototypeOf(v), where + '.__proto__', depth + 1);
       };
       walk(globalThis, 'globalThis', 0); walk(runtime, 'runtime', 0);
       return found.join() || 'none';`,
      "none",
    ],
    [
      "dynamic import()",
      "try { await import('node:fs'); return 'imported'; } catch (e) { return 'refused: ' + e.message; }",
      "refused: Not supported",
    ],
    [
      "eval of host names",
      "return eval('typeof process + typeof globalThis.require');",
      "undefinedundefined",
    ],
  ])("%s", async (_name, code, expected) => {
    expect(outputOf(await session.call("probe", { code }))).toBe(expected);
  });

  it("keeps prototype pollution on either side of the boundary from reaching the host", async () => {
    const raw = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted2": "yes"}}}';
    const data = outputOf<Record<string, unknown>>(await session.call("polluter", raw));
    expect(data.seen).toEqual({ ownProto: true, pollutedBefore: null });
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data).sort()).toEqual(["__proto__", "constructor", "seen"]);
    const empty: Record<string, unknown> = {};
    for (const key of ["polluted", "polluted2", "pollutedInIsolate", "fromResult", "fromResult2", "forged"])
      expect(empty[key]).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
    // The plugin broke its own JSON and Array; its bridge captured them first, so it still works,
    // and the model's "__proto__" argument polluted nothing in the isolate either.
    expect(outputOf<Record<string, unknown>>(await session.call("polluter", {})).seen).toEqual({
      ownProto: false,
      pollutedBefore: null,
    });
  });
});

describe("runaway plugins are stopped and the host keeps running", () => {
  it("an endless loop hits the CPU limit; the event loop never stalls; the next call gets a new isolate", async () => {
    const { text, maxGapMs, ticks } = await timed("spin", {});
    expect(text).toMatch(
      /^spin ran without pause for more than 1000 ms during the call \(an endless loop\?\) and was stopped; its isolate was restarted/,
    );
    expect(ticks).toBeGreaterThan(20);
    expect(maxGapMs).toBeLessThan(500);
    expect(outputOf(await session.call("spin", { ok: true }))).toBe("ok");
    expect(isolateOf("spin")).toMatchObject({ starts: 2, restarts: 1 });
  });

  it("an endless loop after an await is stopped by the wall-clock watchdog", async () => {
    const { text, maxGapMs, ticks } = await timed("spin_later", {});
    expect(text).toMatch(
      /^spin_later did not finish within its timeout of 800 ms \(it may be waiting on a promise that never settles\) and was stopped; its isolate was restarted\. A promise that never settles is a bug in the plugin/,
    );
    expect(ticks).toBeGreaterThan(20);
    expect(maxGapMs).toBeLessThan(500);
    expect(outputOf(await session.call("spin_later", { ok: true }))).toBe("ok");
    expect(isolateOf("spin_later")?.restarts).toBe(1);
  });

  it("a memory bomb hits the memory limit and the isolate is recreated", async () => {
    const { text, maxGapMs } = await timed("hog", {});
    expect(text).toMatch(
      /^hog used more than its memory limit of 16 MB during the call and was stopped; its isolate was restarted/,
    );
    expect(maxGapMs).toBeLessThan(500);
    expect(outputOf(await session.call("hog", { ok: true }))).toBe("ok");
    expect(isolateOf("hog")).toMatchObject({ starts: 2, restarts: 1 });
  });

  it("a thread blocked in Atomics.wait is stopped by the wall-clock watchdog", async () => {
    const { text, maxGapMs } = await timed("waiter", {});
    expect(text).toMatch(
      /^waiter did not finish within its timeout of 500 ms \(it may be waiting on a promise that never settles\) and was stopped; its isolate was restarted\. A promise that never settles is a bug in the plugin/,
    );
    expect(maxGapMs).toBeLessThan(500);
    expect(outputOf(await session.call("waiter", { ok: true }))).toBe("ok");
  });

  it("a string bomb fails inside the isolate with V8's own error", async () => {
    expect(errorOf(await session.call("string_bomb", {}))).toMatch(/Invalid string length|memory limit/);
  });

  it("a command a stopped call started ends with the call, not up to 120 s later", async () => {
    // A distinctive duration, to find this process among the machine's.
    const seconds = "47.123";
    const running = (): boolean => {
      try {
        return execFileSync("pgrep", ["-f", `^sleep ${seconds}$`], { encoding: "utf8" }).trim() !== "";
      } catch {
        return false;
      }
    };
    const call = session.call("lingerer", { seconds });
    // Positive control: while the call runs, its command is there to be seen.
    await expect.poll(running, { timeout: 1400, interval: 50 }).toBe(true);
    expect(errorOf(await call)).toMatch(/^lingerer did not finish within its timeout of 1500 ms/);
    // SIGTERM at once, SIGKILL a second later at most.
    await expect.poll(running, { timeout: 2500, interval: 100 }).toBe(false);
  });

  it("a promise that never settles is stopped by the wall-clock watchdog", async () => {
    const { text, maxGapMs } = await timed("stall", {});
    expect(text).toMatch(
      /^stall did not finish within its timeout of 500 ms \(it may be waiting on a promise that never settles\) and was stopped; its isolate was restarted\. A promise that never settles is a bug in the plugin/,
    );
    expect(maxGapMs).toBeLessThan(500);
    expect(outputOf(await session.call("stall", { ok: true }))).toBe("ok");
    expect(isolateOf("stall")?.restarts).toBe(1);
  });
});

describe("a plugin that may write the workspace still cannot plant a repository", () => {
  it("refuses a .git pointer to a git folder it wrote, whose core.fsmonitor git would run", async () => {
    const plant = (marker: string): [string, string][] => [
      ["planted/HEAD", "ref: refs/heads/main\n"],
      ["planted/config", `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ${marker}; false"\n`],
      ["planted/objects/info/keep", ""],
      ["planted/refs/heads/keep", ""],
      ["src/.git", "gitdir: ../planted\n"],
    ];
    const gitStatus = (cwd: string): void => {
      try {
        execFileSync("git", ["status"], {
          cwd,
          stdio: "ignore",
          env: { ...process.env, GIT_CEILING_DIRECTORIES: "" },
        });
      } catch {
        // The planted repository need not be a sound one: what git runs on the way is the point.
      }
    };
    // Positive control: the same files, written by plain Node, make `git status` in src/ run
    // the planted command.
    const twin = path.join(world.base, "twin");
    const twinMarker = path.join(world.base, "pwned-twin");
    for (const [file, text] of plant(twinMarker)) {
      await mkdir(path.dirname(path.join(twin, file)), { recursive: true });
      await writeFile(path.join(twin, file), text);
    }
    gitStatus(path.join(twin, "src"));
    expect(await readdir(world.base)).toContain("pwned-twin");

    // Through the plugin: everything but the pointer may be written; the pointer is refused.
    const marker = path.join(world.base, "pwned-plugin");
    await mkdir(path.join(world.root, "src"), { recursive: true });
    const text = errorOf(await session.call("planter", { files: plant(marker) }));
    expect(text).toMatch(/src\/\.git is a repository's git folder or the pointer to one \(\.git\)/);
    expect(await readdir(path.join(world.root, "src"))).not.toContain(".git");
    gitStatus(path.join(world.root, "src"));
    expect(await readdir(world.base)).not.toContain("pwned-plugin");
  });
});

describe("undeclared capabilities are refused before anything is touched", () => {
  it.each([
    [
      "reading outside the workspace",
      "reader",
      { path: "../sentinel/secret.txt" },
      /^Access denied: .* is outside what this tool may read/,
    ],
    ["reading an absolute path", "reader", { path: "/etc/hostname" }, /^Access denied: "\/etc\/hostname"/],
    [
      "reading through a symlink out of the workspace",
      "reader",
      { path: "link-to-secret" },
      /^Access denied: ".*\/ws\/link-to-secret" \(which resolves to ".*\/sentinel\/secret\.txt"\)/,
    ],
    ["reading /proc", "reader", { path: "/proc/self/environ" }, /^Access denied/],
    [
      "reading without declaring fs",
      "no_fs",
      {},
      /^no_fs used runtime\.fs\.readText and runtime\.fs\.list, which its tool\.yaml does not declare \(requires\.fs\.read\), so it is not available to it: Cannot read properties of undefined \(reading 'readText'\)/,
    ],
    [
      "writing when only reading is declared",
      "read_only",
      { path: "notes.txt" },
      /^read_only used runtime\.fs\.writeText, which its tool\.yaml does not declare \(requires\.fs\.write\), so it is not available to it: runtime\.fs\.writeText is not a function/,
    ],
    [
      "writing outside the declared folder",
      "writer",
      { path: "src/main.js" },
      // The patterns it declared, not "only under <workspace>": src/main.js is in the workspace.
      /^Access denied: "(.*\/ws)\/src\/main\.js" is outside what this tool may write\. This tool may write only paths matching \1\/out\/\*\*, \1\/\.lathe\/\*\*\. Use a path that one of those patterns matches\./,
    ],
    ["writing outside the workspace", "writer", { path: "../sentinel/secret.txt" }, /^Access denied/],
    [
      "writing Lathe's own plugin folder",
      "writer",
      { path: ".lathe/tools/x/index.js" },
      /refused by the watchdog: .* may not change/,
    ],
    [
      "fetching an undeclared host",
      "fetcher",
      { url: `http://localhost:${port}/` },
      /^fetcher may not reach localhost:\d+: it is not among the hosts this tool declared \(127\.0\.0\.1\)/,
    ],
    [
      "fetching a file: URL",
      "fetcher",
      { url: "file:///etc/passwd" },
      /only fetches http:\/\/ and https:\/\/ URLs/,
    ],
    [
      "fetching without declaring net",
      "no_net",
      { url: `http://127.0.0.1:${port}/` },
      /^no_net used runtime\.net, which its tool\.yaml does not declare \(requires\.net\.hosts\), so it is not available to it: Cannot read properties of undefined \(reading 'fetch'\)/,
    ],
    [
      "running a command without declaring shell",
      "no_shell",
      { cmd: "touch", argv: ["pwned"] },
      /^no_shell used runtime\.shell, which its tool\.yaml does not declare \(requires\.shell\), so it is not available to it: .*This is a bug in the plugin, not in the call: its author must declare requires\.shell in tool\.yaml/,
    ],
    [
      "running an undeclared command",
      "runner",
      { cmd: "touch", argv: ["pwned"] },
      // Said to the plugin's author: the user's "shell" setting would not widen a plugin.
      /^runner may not run "touch" \(in "touch pwned"\): it is not among the commands this plugin declared \(echo\)\. Use another command, or a person can declare it in the plugin's tool\.yaml: \{cmd: "touch"\} under requires\.shell/,
    ],
    [
      "running a shell around a command",
      "runner",
      { cmd: "sh", argv: ["-c", "echo hi > pwned"] },
      /^runner may not run "sh"/,
    ],
    [
      "running a declared command with another argument shape",
      "runner",
      { cmd: "echo", argv: ["a", "b"] },
      /^runner may not run "echo" \(in "echo a b"\): the plugin declared "echo" only with the arguments \[\{"wildcard":true\}\]/,
    ],
    [
      "running a declared command by another path",
      "runner",
      { cmd: "/tmp/echo", argv: ["a"] },
      /^runner may not run "\/tmp\/echo"/,
    ],
  ])("%s", async (_name, toolId, args, message) => {
    const before = await snapshot();
    const seen = requests.length;
    const text = errorOf(await session.call(toolId, args));
    expect(text).toMatch(message);
    expect(text).not.toContain(SECRET);
    expect(await snapshot()).toEqual(before);
    expect(requests.length).toBe(seen);
  });

  it("returns a redirect to an undeclared host instead of following it", async () => {
    const data = outputOf<{ status: number; headers: Record<string, string> }>(
      await session.call("fetcher", { url: `http://127.0.0.1:${port}/redirect` }),
    );
    expect(data.status).toBe(302);
    expect(data.headers.location).toBe(`http://localhost:${port}/stolen`);
    expect(requests).toEqual(["GET /redirect"]);
  });

  it("a headless session in ask mode refuses a gated plugin's write", async () => {
    const headless = await world.engine.openSession({ mode: "ask" });
    const before = await snapshot();
    const text = errorOf(await headless.call("gated_writer", {}));
    expect(text).toMatch(
      /^gated_writer needs approval and this host cannot ask anyone \(headless\), so it is refused/,
    );
    expect(await snapshot()).toEqual(before);
    await headless.close();
  });
});
