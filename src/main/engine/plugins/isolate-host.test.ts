import { afterEach, describe, expect, it, vi } from "vitest";
import { entryUrl } from "./plugin-source.ts";
import { IsolateHost, type RuntimeDispatch } from "./isolate-host.ts";

const hosts: IsolateHost[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.dispose();
});

function host(
  body: string,
  options: {
    logs?: string[];
    memoryMb?: number;
    cpuTimeoutMs?: number;
    shape?: Partial<Record<"fsRead" | "fsWrite" | "net" | "shell", boolean>>;
  } = {},
): IsolateHost {
  const h = new IsolateHost({
    name: "probe",
    source: `export async function execute(args, runtime) {\n${body}\n}\n`,
    filename: entryUrl("/plugins/probe/index.js"),
    shape: { fsRead: false, fsWrite: false, net: false, shell: false, ...options.shape },
    memoryMb: options.memoryMb ?? 32,
    cpuTimeoutMs: options.cpuTimeoutMs ?? 1000,
    onLog: (line) => options.logs?.push(line),
  });
  hosts.push(h);
  return h;
}

const noDispatch: RuntimeDispatch = async (op) => {
  throw new Error(`unexpected ${op}`);
};

function call(
  h: IsolateHost,
  args: unknown = {},
  dispatch: RuntimeDispatch = noDispatch,
  wallTimeoutMs = 5000,
): Promise<unknown> {
  return h.call(args, { dispatch, wallTimeoutMs });
}

describe("IsolateHost", () => {
  it("starts its isolate on the first call only, then keeps it warm", async () => {
    const h = host(
      "globalThis.calls = (globalThis.calls ?? 0) + 1; return { calls: globalThis.calls, sum: args.a + args.b };",
    );
    expect(h.stats()).toMatchObject({ running: false, starts: 0, calls: 0 });
    expect(await call(h, { a: 1, b: 2 })).toEqual({ calls: 1, sum: 3 });
    expect(await call(h, { a: 2, b: 2 })).toEqual({ calls: 2, sum: 4 });
    expect(h.stats()).toMatchObject({ running: true, starts: 1, restarts: 0, calls: 2 });
  });

  it("passes runtime calls to the host's dispatcher and their results back", async () => {
    const seen: [string, unknown][] = [];
    const h = host("const text = await runtime.fs.readText(args.path); return text.toUpperCase();", {
      shape: { fsRead: true },
    });
    const result = await call(h, { path: "a.txt" }, async (op, payload) => {
      seen.push([op, JSON.parse(payload)]);
      return "hello";
    });
    expect(result).toBe("HELLO");
    expect(seen).toEqual([["fs.readText", { path: "a.txt" }]]);
  });

  it("turns a host refusal into an Error the plugin can catch or let through", async () => {
    const h = host(
      "try { await runtime.fs.readText('x'); } catch (e) { return { caught: e.message, isError: e instanceof Error }; }",
      { shape: { fsRead: true } },
    );
    const refuse: RuntimeDispatch = async () => {
      throw new Error("Access denied: x is outside the workspace.");
    };
    expect(await call(h, {}, refuse)).toEqual({
      caught: "Access denied: x is outside the workspace.",
      isError: true,
    });
  });

  it("reports a thrown error with the plugin's own message", async () => {
    const h = host("throw new Error('Give a positive count, e.g. {\"count\": 3}.');");
    await expect(call(h)).rejects.toThrow('Give a positive count, e.g. {"count": 3}.');
    const bare = host("throw 'just a string';");
    await expect(call(bare)).rejects.toThrow("just a string");
  });

  it.each([
    ["a number", "throw 42;", "42"],
    ["null", "throw null;", "null"],
    ["undefined", "throw undefined;", "undefined"],
    [
      "an object without a message",
      "throw { code: 7, message: { nested: 1 } };",
      '{"code":7,"message":{"nested":1}}',
    ],
    ["a proxy that throws when read", "throw new Proxy({}, { get() { throw 1; } });", "[unprintable]"],
  ])(
    "says a thrown value that is not an Error (%s) is a bug of the plugin, not a message",
    async (_what, body, shown) => {
      // Passed on as it was, the model read "null" or "[object Object]" as the whole error.
      const logs: string[] = [];
      await expect(call(host(body, { logs }))).rejects.toThrow(
        `probe failed by throwing ${shown}, not an Error with a message, so it said nothing about what went wrong. This is a bug in the plugin (/plugins/probe/index.js): it should throw new Error("…") saying what was wrong and how to call again.`,
      );
      expect(logs.at(-1)).toMatch(/^call failed: probe failed by throwing /);
    },
  );

  it("refuses a result that is not JSON data", async () => {
    const h = host("return { n: 10n };");
    await expect(call(h)).rejects.toThrow(/returned a value that is not JSON data .*BigInt/);
  });

  it("forwards runtime.log and console to the host's log, capped per call", async () => {
    const logs: string[] = [];
    const h = host(
      "runtime.log('found', 3, { files: ['a'] }); console.warn('careful'); for (let i = 0; i < 1000; i++) runtime.log('spam', i); return 1;",
      { logs },
    );
    await call(h);
    expect(logs[0]).toBe('found 3 {"files":["a"]}');
    expect(logs[1]).toBe("careful");
    expect(logs.length).toBeLessThanOrEqual(202);
    expect(logs.at(-1)).toBe("[more log lines in this call were dropped]");
  });

  it("runs calls one at a time", async () => {
    const h = host(
      "const end = Date.now() + 50; while (Date.now() < end) {} globalThis.order = [...(globalThis.order ?? []), args.n]; return globalThis.order;",
    );
    const results = await Promise.all([call(h, { n: 1 }), call(h, { n: 2 }), call(h, { n: 3 })]);
    expect(results[2]).toEqual([1, 2, 3]);
  });

  it("lets requests the plugin did not await finish before the result is handed back", async () => {
    const done: string[] = [];
    const h = host("runtime.fs.readText('slow.txt'); return 'returned';", { shape: { fsRead: true } });
    const slow: RuntimeDispatch = async (_op, payload) => {
      await new Promise((r) => setTimeout(r, 100));
      done.push((JSON.parse(payload) as { path: string }).path);
      return "";
    };
    expect(await call(h, {}, slow)).toBe("returned");
    expect(done).toEqual(["slow.txt"]);
  });

  it("refuses a runtime kept from a finished call", async () => {
    const h = host(
      "if (args.first) { globalThis.kept = runtime; return 'kept'; } try { await globalThis.kept.fs.readText('a'); return 'used'; } catch (e) { return e.message; }",
      { shape: { fsRead: true } },
    );
    const dispatch: RuntimeDispatch = async () => "content";
    expect(await call(h, { first: true }, dispatch)).toBe("kept");
    expect(await call(h, {}, dispatch)).toMatch(/belongs to a call that has finished/);
  });

  it("stops code that goes on using runtime after its call, so it does not run between calls", async () => {
    const logs: string[] = [];
    // A loop around a request, started and not awaited: every answer enters the isolate again.
    const h = host(
      `if (args.check) return globalThis.spins ?? "a fresh isolate";
       globalThis.spins = 0;
       (async () => { for (;;) { try { await runtime.fs.list("."); } catch {} globalThis.spins++; if (args.until && globalThis.spins >= args.until) return; } })();
       if (args.until) { while (globalThis.spins < args.until) await runtime.fs.list("."); return "spun"; }
       return "started";`,
      { shape: { fsRead: true }, logs },
    );
    let requests = 0;
    const dispatch: RuntimeDispatch = async () => {
      requests++;
      return [];
    };
    // Positive control: within its call the loop runs, and the isolate keeps its globals.
    expect(await call(h, { until: 50 }, dispatch)).toBe("spun");
    expect(await call(h, { check: true }, dispatch)).toBeGreaterThanOrEqual(50);
    expect(h.stats().restarts).toBe(0);

    expect(await call(h, {}, dispatch)).toBe("started");
    const afterCall = requests;
    await new Promise((r) => setTimeout(r, 200));
    expect(requests).toBe(afterCall);
    expect(await call(h, { check: true }, dispatch)).toBe("a fresh isolate");
    expect(h.stats()).toMatchObject({ restarts: 1, starts: 2 });
    expect(logs.join("\n")).toMatch(
      /isolate stopped: probe went on using runtime after its call had ended .*must finish within its call/,
    );
  });

  it("stops, after the running call, an isolate a kept runtime was used in; that call's result stands", async () => {
    const h = host(
      "if (args.first) { globalThis.kept = runtime; return 'kept'; } await runtime.fs.readText('b'); globalThis.kept.fs.readText('a').catch(() => {}); return 'second';",
      { shape: { fsRead: true } },
    );
    const dispatch: RuntimeDispatch = async () => "content";
    expect(await call(h, { first: true }, dispatch)).toBe("kept");
    expect(await call(h, {}, dispatch)).toBe("second");
    // The kept runtime's request may reach the host before the call's end (the isolate is then
    // stopped as the call ends) or after it (stopped when it arrives): stopped either way.
    await vi.waitFor(() => expect(h.stats()).toMatchObject({ restarts: 1, running: false }));
  });

  it("drains: waits for the call in flight and refuses new ones with the reason", async () => {
    const h = host("const end = Date.now() + 200; while (Date.now() < end) {} return 'done';");
    const inFlight = call(h);
    await new Promise((r) => setTimeout(r, 20));
    const draining = h.drain("probe is being reloaded; call it again after this turn.", 5000);
    await expect(call(h)).rejects.toThrow("probe is being reloaded; call it again after this turn.");
    expect(await inFlight).toBe("done");
    await draining;
    expect(h.pending).toBe(0);
  });

  it("disposes idempotently and refuses calls afterwards", async () => {
    const h = host("return 1;");
    await call(h);
    h.dispose();
    h.dispose();
    expect(h.stats().running).toBe(false);
    await expect(call(h)).rejects.toThrow("probe has been unloaded.");
  });

  it("explains an `execute` export that is not a function, on every call", async () => {
    const h = new IsolateHost({
      name: "odd",
      source: "export const execute = 42;",
      filename: entryUrl("/plugins/odd/index.js"),
      shape: { fsRead: false, fsWrite: false, net: false, shell: false },
      memoryMb: 16,
      cpuTimeoutMs: 1000,
      onLog: () => undefined,
    });
    hosts.push(h);
    await expect(call(h)).rejects.toThrow(/`execute` export is not a function/);
    expect(h.stats().lastFailure).toMatch(/not a function/);
  });

  it("says a call that fills its heap with the host's replies used its memory limit, and restarts", async () => {
    // Each reply is copied in while the plugin awaits: isolated-vm then disposes the isolate on
    // its own and rejects the pending call with "Promise was abandoned", not "memory limit".
    const logs: string[] = [];
    const h = host(
      "const keep = []; for (let i = 0; i < args.n; i++) keep.push(await runtime.fs.readText('big.txt')); return keep.length;",
      { shape: { fsRead: true }, memoryMb: 8, logs },
    );
    const big = "a".repeat(3 * 1024 * 1024);
    const dispatch: RuntimeDispatch = async () => big;
    await expect(call(h, { n: 20 }, dispatch)).rejects.toThrow(
      "probe used more than its memory limit of 8 MB during the call and was stopped; its isolate was restarted. Call it with a smaller input.",
    );
    expect(logs.at(-1)).toMatch(/^isolate stopped: probe used more than its memory limit of 8 MB/);
    expect(h.stats()).toMatchObject({ running: false, restarts: 1 });
    expect(await call(h, { n: 1 }, dispatch)).toBe(1);
  });

  it("stops top-level code that loops, and says so", async () => {
    const h = new IsolateHost({
      name: "loopy",
      source: "for (;;) {}\nexport async function execute() { return 1; }",
      filename: entryUrl("/plugins/loopy/index.js"),
      shape: { fsRead: false, fsWrite: false, net: false, shell: false },
      memoryMb: 16,
      cpuTimeoutMs: 1000,
      onLog: () => undefined,
    });
    hosts.push(h);
    await expect(call(h)).rejects.toThrow(
      /^loopy ran without pause for more than 1000 ms while starting \(an endless loop\?\) and was stopped; its isolate was restarted\. This is a bug in the plugin's top-level code \(\/plugins\/loopy\/index\.js\), not in the call: its author must keep it to declarations and do the work inside execute\.$/,
    );
  });

  it("says top-level code that fills the heap is the plugin's bug, not the call's input", async () => {
    const h = new IsolateHost({
      name: "hoggy",
      source:
        "const keep = []; for (;;) keep.push(new Array(100000).fill(1));\nexport async function execute() { return 1; }",
      filename: entryUrl("/plugins/hoggy/index.js"),
      shape: { fsRead: false, fsWrite: false, net: false, shell: false },
      memoryMb: 16,
      cpuTimeoutMs: 1000,
      onLog: () => undefined,
    });
    hosts.push(h);
    const err = await call(h).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/^hoggy used more than its memory limit of 16 MB while starting/);
    expect(err?.message).toContain("bug in the plugin's top-level code");
    expect(err?.message).not.toContain("smaller input");
  });
});

describe("a runtime member tool.yaml does not grant", () => {
  type Shape = Partial<Record<"fsRead" | "fsWrite" | "net" | "shell", boolean>>;
  const USE = /which its tool\.yaml does not declare/;
  it.each<[string, string, Shape, RegExp]>([
    [
      "runtime.shell.run without requires.shell",
      "return await runtime.shell.run('git', ['log']);",
      {},
      /^probe used runtime\.shell, which its tool\.yaml does not declare \(requires\.shell\), so it is not available to it: Cannot read properties of undefined \(reading 'run'\) \(thrown at \/plugins\/probe\/index\.js:2:\d+\)\. This is a bug in the plugin, not in the call: its author must declare requires\.shell in tool\.yaml \(requires: \{shell: \[\{cmd: <program>/,
    ],
    [
      "runtime.net.fetch without requires.net",
      "return await runtime.net.fetch('https://example.com/');",
      { fsRead: true },
      /^probe used runtime\.net, which its tool\.yaml does not declare \(requires\.net\.hosts\).*reading 'fetch'.*declare requires\.net\.hosts in tool\.yaml/,
    ],
    [
      "a destructured runtime.shell",
      "const { run } = runtime.shell; return run('ls');",
      {},
      /^probe used runtime\.shell, .*requires\.shell/,
    ],
    [
      "runtime.fs.readText without any fs",
      "return await runtime.fs.readText('a.txt');",
      { net: true },
      /^probe used runtime\.fs\.readText and runtime\.fs\.list, .*\(requires\.fs\.read\).*reading 'readText'/,
    ],
    [
      "runtime.fs.writeText without any fs",
      "return await runtime.fs.writeText('a.txt', 'x');",
      {},
      /^probe used runtime\.fs\.writeText, .*\(requires\.fs\.write\)/,
    ],
    [
      "runtime.fs.writeText with fs.read only",
      "return await runtime.fs.writeText('a.txt', 'x');",
      { fsRead: true },
      /^probe used runtime\.fs\.writeText, .*\(requires\.fs\.write\), so it is not available to it: runtime\.fs\.writeText is not a function/,
    ],
    [
      "runtime.fs.list with fs.write only",
      "return await runtime.fs.list('.');",
      { fsWrite: true },
      /^probe used runtime\.fs\.readText and runtime\.fs\.list, .*\(requires\.fs\.read\)/,
    ],
  ])("%s names the field to declare", async (_name, body, shape, message) => {
    await expect(call(host(body, { shape }))).rejects.toThrow(message);
  });

  it.each<[string, string, Shape, RegExp]>([
    [
      "a TypeError of its own, after checking an absent member",
      "if (runtime.net === undefined) { const user = null; return user.name; } return 1;",
      {},
      /^Cannot read properties of null \(reading 'name'\) \(thrown at/,
    ],
    [
      "a TypeError with no absent member read",
      "const o = undefined; return o.run();",
      {},
      /^Cannot read properties of undefined \(reading 'run'\) \(thrown at/,
    ],
    [
      "a plain Error after reading an absent member",
      "if (!runtime.shell) throw new Error('run needs a shell; none is declared'); return 1;",
      {},
      /^run needs a shell; none is declared \(thrown at/,
    ],
  ])("%s keeps the plugin's own message", async (_name, body, shape, message) => {
    const error = call(host(body, { shape }));
    await expect(error).rejects.toThrow(message);
    await expect(error).rejects.not.toThrow(USE);
  });

  it("stays absent, as docs/plugins.md says: undefined, not `in`, not among the keys", async () => {
    const h = host(
      "return { net: runtime.net === undefined, inNet: 'net' in runtime, keys: Object.keys(runtime), fsKeys: Object.keys(runtime.fs), write: 'writeText' in runtime.fs, frozen: Object.isFrozen(runtime) };",
      { shape: { fsRead: true } },
    );
    expect(await call(h)).toEqual({
      net: true,
      inNet: false,
      keys: ["fs", "log"],
      fsKeys: ["readText", "list"],
      write: false,
      frozen: true,
    });
  });
});
