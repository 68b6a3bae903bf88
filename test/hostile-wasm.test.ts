import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPluginWorld, plugin, writePlugin, type PluginWorld } from "./support/plugin-test-kit.ts";
import { errorOf, outputOf } from "./support/envelope-of.ts";
import type { Session } from "../src/main/engine/session/session.ts";

/**
 * WebAssembly memory lives outside the V8 heap, so an isolate's memory limit does not count it.
 * Positive control: in plain isolated-vm with a 16 MB limit, a wasm memory grown to 256 MB and
 * touched really grows the process by ~256 MB. In Lathe a plugin without `wasm: true` has no
 * WebAssembly, and one with it cannot reserve more than its budget (16 MB here) however it
 * tries; the host's RSS stays flat.
 */

const MB = 1024 * 1024;
/** The package root, where `isolated-vm` resolves from. */
const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const GROWTH_CEILING = 64 * MB;
const OPEN_ARGS = { type: "object", additionalProperties: true };

// --- a tiny WebAssembly assembler: just the sections these tests need -----------------------

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const name = (s: string): number[] => [...leb(s.length), ...Buffer.from(s)];
const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
const limits = (min: number, max?: number): number[] =>
  max === undefined ? [0x00, ...leb(min)] : [0x01, ...leb(min), ...leb(max)];

interface ModuleSpec {
  /** A memory the module defines: [min, max?] in 64 KiB pages. */
  memory?: [number, number?];
  /** Import the memory as env.mem (declared without a maximum) instead of defining it. */
  importMemory?: boolean;
}

/** A module exporting `grow(pages) -> old size or -1` over its one memory, and the memory as `mem`. */
function wasmModule(spec: ModuleSpec): number[] {
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  bytes.push(...section(1, vec([[0x60, ...vec([[0x7f]]), ...vec([[0x7f]])]])));
  if (spec.importMemory)
    bytes.push(...section(2, vec([[...name("env"), ...name("mem"), 0x02, ...limits(1)]])));
  bytes.push(...section(3, vec([leb(0)])));
  if (spec.memory) bytes.push(...section(5, vec([limits(spec.memory[0], spec.memory[1])])));
  bytes.push(
    ...section(
      7,
      vec([
        [...name("mem"), 0x02, 0x00],
        [...name("grow"), 0x00, 0x00],
      ]),
    ),
  );
  const body = [0x00, 0x20, 0x00, 0x40, 0x00, 0x0b];
  bytes.push(...section(10, vec([[...leb(body.length), ...body]])));
  return bytes;
}

// --- the attacks ------------------------------------------------------------------------------

/** Grows to `mb` megabytes and touches every page, so the memory is really resident. */
const FILL = `const fill = (mem) => { new Uint8Array(mem.buffer).fill(1); return mem.buffer.byteLength; };`;

const BIG = wasmModule({ memory: [1, 4096] });
const UNBOUNDED = wasmModule({ memory: [1] });
const SMALL = wasmModule({ memory: [1, 16] });
const IMPORTS = wasmModule({ importMemory: true });

interface Attack {
  code: string;
  bytes?: number[];
  expected: RegExp;
}

/** Each row runs in the bounded plugin (wasm: true, 16 MB) and must fail with `expected`. */
const ATTACKS: Record<string, Attack> = {
  "a JS memory without a maximum": {
    code: `const m = new WebAssembly.Memory({ initial: 1 }); m.grow(4095); return fill(m);`,
    expected: /needs a maximum/,
  },
  "a JS memory with a 4 GB maximum, grown": {
    code: `const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(4095); return fill(m);`,
    expected: /memory budget exceeded \(65536 pages asked, \d+ left\)/,
  },
  "a module memory without a maximum, grown by instruction": {
    bytes: UNBOUNDED,
    code: `const { instance } = await WebAssembly.instantiate(new Uint8Array(args.bytes)); instance.exports.grow(4095); return fill(instance.exports.mem);`,
    expected: /must declare a maximum size for every memory/,
  },
  "a module memory with a 256 MB maximum, grown by instruction": {
    bytes: BIG,
    code: `const m = new WebAssembly.Module(new Uint8Array(args.bytes)); const i = new WebAssembly.Instance(m, {}); i.exports.grow(4095); return fill(i.exports.mem);`,
    expected: /memory budget exceeded \(4096 pages asked/,
  },
  "the real Memory constructor reached through a legitimate memory": {
    code: `const ok = new WebAssembly.Memory({ initial: 1, maximum: 1 }); const Real = ok.constructor; const m = new Real({ initial: 1, maximum: 65536 }); m.grow(4095); return fill(m);`,
    expected: /memory budget exceeded \(65536 pages asked/,
  },
  "the real Module and Instance constructors reached through prototypes": {
    bytes: BIG,
    code: `const small = await WebAssembly.compile(new Uint8Array([0,97,115,109,1,0,0,0]));
       const RealModule = Object.getPrototypeOf(small).constructor;
       const RealInstance = Object.getPrototypeOf(new WebAssembly.Instance(small, {})).constructor;
       const i = new RealInstance(new RealModule(new Uint8Array(args.bytes)), {}); i.exports.grow(4095); return fill(i.exports.mem);`,
    expected: /memory budget exceeded \(4096 pages asked/,
  },
  "the accounting's WeakMap patched after compiling": {
    bytes: BIG,
    code: `const big = new WebAssembly.Module(new Uint8Array(args.bytes));
       WeakMap.prototype.get = () => 0; WeakMap.prototype.has = () => true; Promise.prototype.then = function (ok) { return ok(big); };
       const i = new WebAssembly.Instance(big, {}); i.exports.grow(4095); return fill(i.exports.mem);`,
    expected: /memory budget exceeded \(4096 pages asked/,
  },
  "a typed array whose buffer getter lies": {
    bytes: BIG,
    code: `const real = new Uint8Array(args.bytes); const fake = new Uint8Array([0,97,115,109,1,0,0,0]);
       Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), "buffer", { get() { return fake.buffer; } });
       const i = (await WebAssembly.instantiate(real, {})).instance; i.exports.grow(4095); return fill(i.exports.mem);`,
    expected: /memory budget exceeded \(4096 pages asked/,
  },
  "many small memories, one after another": {
    bytes: SMALL,
    code: `globalThis.keep = [];
       for (let n = 0; n < 64; n++) { const i = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(args.bytes)), {}); i.exports.grow(15); fill(i.exports.mem); keep.push(i); }
       return keep.length;`,
    expected: /memory budget exceeded \(16 pages asked, 0 left\)/,
  },
  "an imported memory declared without a maximum": {
    bytes: IMPORTS,
    code: `const mem = new WebAssembly.Memory({ initial: 1, maximum: 16 });
       const i = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(args.bytes)), { env: { mem } });
       const grown = i.exports.grow(4095); if (grown === -1) throw new Error("grow refused: " + mem.buffer.byteLength); return fill(mem);`,
    expected: /grow refused: 65536/,
  },
  "module after module (compiled code is off the heap too)": {
    code: `const size = 2 * 1024 * 1024; const bytes = new Uint8Array(8 + 5 + 2 + size);
       bytes.set([0, 97, 115, 109, 1, 0, 0, 0, 0, 0x82, 0x80, 0x80, 0x01, 1, 120]);
       globalThis.modules = []; for (let n = 0; n < 10; n++) modules.push(new WebAssembly.Module(bytes));
       return modules.length;`,
    expected: /module budget exceeded/,
  },
  "JS promise integration (off-heap stacks)": {
    code: `if (typeof WebAssembly.promising === "function" || typeof WebAssembly.Suspending === "function") return "present"; throw new Error("absent");`,
    expected: /absent/,
  },
};

let world: PluginWorld;
let session: Session;

beforeAll(async () => {
  world = await openPluginWorld({
    arrange: async (w) => {
      const body = `${FILL}\nconst AsyncFunction = (async () => {}).constructor; return await new AsyncFunction("args", "fill", args.code)(args, fill);`;
      await writePlugin(
        w.globalDir,
        "bounded",
        plugin("bounded", body, { input_schema: OPEN_ARGS, wasm: true, limits: { memoryMb: 16 } }),
      );
      await writePlugin(
        w.globalDir,
        "plain",
        plugin("plain", body, { input_schema: OPEN_ARGS, limits: { memoryMb: 16 } }),
      );
    },
  });
  expect(world.manager.status().filter((s) => s.state !== "active")).toEqual([]);
  session = await world.session();
});

afterAll(async () => {
  await world?.cleanup();
});

async function rssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const before = process.memoryUsage().rss;
  const value = await work();
  return { value, growth: process.memoryUsage().rss - before };
}

describe("positive control: plain isolated-vm does not count WebAssembly memory", () => {
  it.each([
    [
      "a JS memory grown to 256 MB",
      `const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(4095); fill(m);`,
    ],
    [
      "a module memory grown to 256 MB by instruction",
      `const i = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(${JSON.stringify(UNBOUNDED)})), {}); i.exports.grow(4095); fill(i.exports.mem);`,
    ],
  ])("%s grows the process by ~256 MB under a 16 MB limit", async (_name, code) => {
    // In a process of its own: in this one, memory an earlier row freed can be handed back to
    // the system while this row grows, and the difference of two RSS readings then undercounts
    // (it failed that way under load).
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import ivm from "isolated-vm";
         const isolate = new ivm.Isolate({ memoryLimit: 16 });
         const context = await isolate.createContext();
         const before = process.memoryUsage().rss;
         await context.eval(${JSON.stringify(`${FILL}\n${code}\nglobalThis.kept = true;`)}, { timeout: 10_000 });
         process.stdout.write(String(process.memoryUsage().rss - before));`,
      ],
      { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 },
    );
    expect(child.status, child.stderr).toBe(0);
    expect(Number(child.stdout)).toBeGreaterThan(200 * MB);
  });
});

describe("Lathe: no WebAssembly unless declared", () => {
  it("a plugin without `wasm: true` has no WebAssembly, so the same growth cannot start", async () => {
    expect(outputOf(await session.call("plain", { code: "return typeof WebAssembly;" }))).toBe("undefined");
    const { value, growth } = await rssGrowth(() =>
      session.call("plain", {
        code: `const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(4095); return fill(m);`,
      }),
    );
    expect(errorOf(value)).toMatch(/WebAssembly is not defined/);
    expect(growth).toBeLessThan(GROWTH_CEILING);
  });

  it("the declared budget still runs real WebAssembly", async () => {
    const data = outputOf(
      await session.call("bounded", {
        bytes: SMALL,
        code: `const { instance } = await WebAssembly.instantiate(new Uint8Array(args.bytes));
           const before = instance.exports.grow(2); const over = instance.exports.grow(100);
           return { before, over, bytes: fill(instance.exports.mem), validate: WebAssembly.validate(new Uint8Array(args.bytes)) };`,
      }),
    );
    expect(data).toEqual({ before: 1, over: -1, bytes: 3 * 65536, validate: true });
  });
});

describe("Lathe: a plugin with `wasm: true` stays within its 16 MB budget", () => {
  it.each(Object.entries(ATTACKS))("%s", async (_name, attack) => {
    const restartsBefore = world.manager.status().find((s) => s.toolId === "bounded")?.isolate?.restarts ?? 0;
    const { value, growth } = await rssGrowth(() =>
      session.call("bounded", { code: attack.code, ...(attack.bytes ? { bytes: attack.bytes } : {}) }),
    );
    expect(errorOf(value)).toMatch(attack.expected);
    expect(growth).toBeLessThan(GROWTH_CEILING);
    // A spent budget restarts the isolate, which frees what it held; the next call works.
    const status = world.manager.status().find((s) => s.toolId === "bounded")?.isolate;
    if (/budget exceeded/.test(errorOf(value))) expect(status?.restarts).toBe(restartsBefore + 1);
    expect(outputOf(await session.call("bounded", { code: "return typeof WebAssembly.Memory;" }))).toBe(
      "function",
    );
  });
});
