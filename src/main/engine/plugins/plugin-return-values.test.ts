import { afterEach, describe, expect, it } from "vitest";
import { entryUrl } from "./plugin-source.ts";
import { IsolateHost } from "./isolate-host.ts";

// What a plugin may return (docs/plugins.md, "Return values"): JSON data as it is; Dates as ISO
// strings, undefined at the top as null, undefined properties left out, as JSON.stringify does;
// everything JSON.stringify would drop or turn into {} without a word is an error that names
// where it is and what to return instead.

const hosts: IsolateHost[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.dispose();
});

function returning(expression: string): Promise<unknown> {
  const h = new IsolateHost({
    name: "probe",
    source: `export async function execute() {\n  return ${expression};\n}\n`,
    filename: entryUrl("/plugins/probe/index.js"),
    shape: { fsRead: false, fsWrite: false, net: false, shell: false },
    memoryMb: 32,
    cpuTimeoutMs: 1000,
    onLog: () => undefined,
  });
  hosts.push(h);
  return h.call({}, { dispatch: () => Promise.reject(new Error("no runtime here")), wallTimeoutMs: 5000 });
}

describe("plugin return values that are converted", () => {
  it.each([
    [
      "plain JSON data",
      `{ a: 1, b: "x", c: [true, null], d: { e: 1.5 } }`,
      { a: 1, b: "x", c: [true, null], d: { e: 1.5 } },
    ],
    ["a string", `"text"`, "text"],
    ["undefined at the top level", "undefined", null],
    ["nothing at all (no return value)", "void 0", null],
    ["a Date, as its ISO string", "new Date(0)", "1970-01-01T00:00:00.000Z"],
    ["a Date inside an object", "{ at: new Date(86400000) }", { at: "1970-01-02T00:00:00.000Z" }],
    ["an undefined property, left out", "{ a: 1, gone: undefined }", { a: 1 }],
    ["undefined in an array, as null", "[1, undefined, 3]", [1, null, 3]],
    ["NaN and Infinity, as null", "[NaN, Infinity, -Infinity]", [null, null, null]],
    ["a value with toJSON, as what toJSON returns", "{ v: { toJSON() { return 'mine'; } } }", { v: "mine" }],
    [
      "a class instance, as its own enumerable properties",
      "new (class P { constructor() { this.x = 1; } })()",
      { x: 1 },
    ],
    ["symbol-keyed properties, left out", "{ a: 1, [Symbol('k')]: 2 }", { a: 1 }],
  ])("%s", async (_name, expression, expected) => {
    expect(await returning(expression)).toEqual(expected);
  });
});

describe("plugin return values that are errors naming where and what to return instead", () => {
  it.each([
    ["a function at the top level", "() => 1", /the result is a function, which is not data/],
    ["a function inside an object", "{ ok: 1, run() {} }", /result\.run is a function/],
    [
      "a Symbol at the top level",
      "Symbol('x')",
      /the result is a Symbol.*return its description as a string/,
    ],
    ["a Symbol in an array", "[1, Symbol('x')]", /result\[1\] is a Symbol/],
    [
      "a Map",
      "new Map([['a', 1]])",
      /the result is a Map, which JSON would turn into \{\}: return Object\.fromEntries\(map\)/,
    ],
    ["a Map deep inside", "{ stats: { byFile: new Map() } }", /result\.stats\.byFile is a Map/],
    ["a Set", "{ tags: new Set(['a']) }", /result\.tags is a Set.*return \[\.\.\.set\]/],
    ["a WeakMap", "{ w: new WeakMap() }", /result\.w is a WeakMap or WeakSet/],
    ["a BigInt", "{ big: 10n }", /result\.big is a BigInt.*String\(n\)/],
    ["a BigInt at the top level", "10n", /the result is a BigInt/],
    ["a Promise not awaited", "{ later: Promise.resolve(1) }", /result\.later is a Promise: await it/],
    ["a RegExp", "[/x/]", /result\[0\] is a RegExp/],
    ["an Error", "{ error: new Error('x') }", /result\.error is an Error.*return error\.message/],
    [
      "binary data",
      "{ bytes: new Uint8Array([1, 2]) }",
      /result\.bytes is binary data.*Array\.from\(bytes\)/,
    ],
    ["a key that is not an identifier", `{ "two words": new Set() }`, /result\["two words"\] is a Set/],
    ["a cycle", "(() => { const a = {}; a.self = a; return a; })()", /circular structure/],
  ])("%s", async (_name, expression, message) => {
    const failure = returning(expression);
    await expect(failure).rejects.toThrow(/^probe returned a value that is not JSON data \(/);
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.toThrow(/this is a bug in the plugin\.$/);
  });
});
