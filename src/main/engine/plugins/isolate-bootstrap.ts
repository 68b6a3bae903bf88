import type { RequirementSet } from "../tools/requirement-set.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { WASM_GUARD } from "./wasm-guard.ts";

/** Which `runtime` members a plugin gets: exactly what its `requires` declares. */
export interface RuntimeShape {
  fsRead: boolean;
  fsWrite: boolean;
  net: boolean;
  shell: boolean;
}

/** The `runtime` members a RequirementSet grants. */
export function runtimeShape(requires: RequirementSet): RuntimeShape {
  return {
    fsRead: (requires.fs?.read?.length ?? 0) > 0,
    fsWrite: (requires.fs?.write?.length ?? 0) > 0,
    net: (requires.net?.hosts?.length ?? 0) > 0,
    shell: (requires.shell?.length ?? 0) > 0,
  };
}

/**
 * The code that runs in a fresh context before the plugin's module, as an `evalClosure` body.
 * `$0` is a Reference to the host's dispatcher `(token, op, payloadJson) => Promise<replyJson>`,
 * `$1` a Reference to the host's log sink `(line) => void`, `$2` the RuntimeShape as JSON, `$3`
 * the WebAssembly budget in MB (0: the plugin did not declare `wasm`, and gets no WebAssembly).
 *
 * It captures the intrinsics it needs before any plugin code runs, keeps both References in
 * its closure (nothing is put on the global object but a console that forwards to the log), and
 * returns `install(execute)`, which returns `run(token, argsJson) => Promise<replyJson>`. Only
 * strings cross the boundary: arguments and results travel as JSON, so no host object, prototype
 * or Reference ever reaches the plugin, and nothing the plugin builds reaches the host.
 */
export const ISOLATE_BOOTSTRAP = `
"use strict";
const dispatchRef = $0;
const logRef = $1;
const parse = JSON.parse;
const stringify = JSON.stringify;
const ErrorCtor = Error;
const StringCtor = String;
const freeze = Object.freeze;
const apply = Reflect.apply;
const fromCharCode = String.fromCharCode;
const Bytes = Uint8Array;
const subarray = Uint8Array.prototype.subarray;
const shape = parse($2);
const wasmMb = $3;
const MAX_LINE = ${PLUGIN_LIMITS.logLineChars};
const MAX_LINES = ${PLUGIN_LIMITS.logLinesPerCall};
const MAX_MESSAGE = 4000;
const MAX_STACK = 4000;
const MapCtor = Map;
const SetCtor = Set;
const WeakMapCtor = WeakMap;
const WeakSetCtor = WeakSet;
const PromiseCtor = Promise;
const RegExpCtor = RegExp;
const ErrorBase = Error;
const ArrayBufferCtor = ArrayBuffer;
const isView = ArrayBuffer.isView;
const isArray = Array.isArray;
const keysOf = Object.keys;
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const applyOptions = freeze({ __proto__: null, result: freeze({ __proto__: null, promise: true }) });
const ProxyCtor = Proxy;
const TypeErrorCtor = TypeError;
let execute;
let logLines = 0;
// The runtime members tool.yaml did not grant that this call read anyway ("shell", "fs.writeText"),
// as the keys of a prototype-less object (the plugin may have changed Array's and Set's methods).
let absentRead = { __proto__: null };
let restartAfterCall = false;

// WebAssembly memory is not counted by the isolate's memory limit: none unless declared, and
// then the bounded namespace of wasm-guard.ts.
const RealWebAssembly = globalThis.WebAssembly;
delete globalThis.WebAssembly;
if (wasmMb > 0 && RealWebAssembly !== undefined) {
  const bounded = (${WASM_GUARD})(RealWebAssembly, wasmMb * 16, wasmMb * 1024 * 1024, () => {
    restartAfterCall = true;
  });
  Object.defineProperty(globalThis, "WebAssembly", { value: bounded, writable: true, configurable: true });
}

function text(value) {
  if (typeof value === "string") return value;
  try {
    const json = stringify(value);
    return json === undefined ? StringCtor(value) : json;
  } catch {
    try { return StringCtor(value); } catch { return "[unprintable]"; }
  }
}

function log(args) {
  if (logLines > MAX_LINES) return;
  logLines++;
  let line = "";
  if (logLines > MAX_LINES) line = "[more log lines in this call were dropped]";
  else {
    for (let i = 0; i < args.length; i++) line += (i === 0 ? "" : " ") + text(args[i]);
    if (line.length > MAX_LINE) line = line.slice(0, MAX_LINE) + "…";
  }
  logRef.applyIgnored(undefined, [line]);
}

function messageOf(error) {
  let message;
  try {
    message = typeof error === "object" && error !== null && typeof error.message === "string" ? error.message : StringCtor(error);
  } catch {
    message = "[an error that could not be printed]";
  }
  return message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE) + "…" : message;
}

// Whether a thrown value carries no message of its own (it is not a string, nor an object with a
// string message): then it is passed on as data, and the host says the plugin gave no reason.
function bareThrow(error) {
  if (typeof error === "string") return false;
  if (typeof error !== "object" || error === null) return true;
  try { return typeof error.message !== "string"; } catch { return true; }
}

function shownThrow(error) {
  const shown = text(error);
  return shown.length > MAX_MESSAGE ? shown.slice(0, MAX_MESSAGE) + "…" : shown;
}

// The stack of a thrown error, for the host to find the plugin's line in; "" when there is none.
function stackOf(error) {
  try {
    const stack = typeof error === "object" && error !== null ? error.stack : undefined;
    return typeof stack === "string" ? stack.slice(0, MAX_STACK) : "";
  } catch {
    return "";
  }
}

// What JSON.stringify would drop or mangle without a word, and how to return it instead.
function unusable(value) {
  switch (typeof value) {
    case "function":
      return "is a function, which is not data: return what it computes";
    case "symbol":
      return "is a Symbol, which is not data: return its description as a string";
    case "bigint":
      return "is a BigInt, which JSON cannot hold: return String(n), or Number(n) when it fits";
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return undefined;
  if (value instanceof MapCtor) return "is a Map, which JSON would turn into {}: return Object.fromEntries(map) (an object) or [...map] (a list of pairs)";
  if (value instanceof SetCtor) return "is a Set, which JSON would turn into {}: return [...set]";
  if (value instanceof WeakMapCtor || value instanceof WeakSetCtor) return "is a WeakMap or WeakSet, which cannot be read out: return plain data";
  if (value instanceof PromiseCtor) return "is a Promise: await it before returning";
  if (value instanceof RegExpCtor) return "is a RegExp, which JSON would turn into {}: return String(re)";
  if (value instanceof ErrorBase) return "is an Error, which JSON would turn into {}: throw it, or return error.message";
  if (value instanceof ArrayBufferCtor || isView(value)) return "is binary data (an ArrayBuffer or typed array), which JSON would mangle: return Array.from(bytes), or text";
  return undefined;
}

class Unusable {
  constructor(holder, key, why) {
    this.holder = holder;
    this.key = key;
    this.why = why;
  }
}

function step(path, key) {
  if (isArray(path.holder)) return path.text + "[" + key + "]";
  return identifier.test(key) ? path.text + "." + key : path.text + "[" + stringify(key) + "]";
}

// Where in the result an object sits, as "result.items[2]"; found by walking from the root.
function pathTo(root, target) {
  const seen = new WeakSetCtor();
  const queue = [{ node: root, text: "result" }];
  for (let i = 0; i < queue.length && i < 100000; i++) {
    const { node, text } = queue[i];
    if (node === target) return text;
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    for (const key of keysOf(node)) {
      let child;
      try { child = node[key]; } catch { continue; }
      if (typeof child === "object" && child !== null) queue.push({ node: child, text: step({ holder: node, text }, key) });
    }
  }
  return undefined;
}

function replacer(key, value) {
  const why = unusable(value);
  if (why !== undefined) throw new Unusable(this, key, why);
  return value;
}

// The result as JSON, by the rules docs/plugins.md gives: undefined at the top is null, Dates
// become ISO strings, undefined properties are left out; anything JSON would silently drop or
// turn into {} is an error naming where it is and what to return instead.
function serialize(result) {
  try {
    return stringify(result, replacer);
  } catch (error) {
    if (!(error instanceof Unusable)) throw error;
    const where = error.key === "" ? "the result" : (() => {
      const parent = pathTo(result, error.holder);
      return parent === undefined ? "a value in the result" : step({ holder: error.holder, text: parent }, error.key);
    })();
    throw new ErrorBase(where + " " + error.why);
  }
}

// A large reply arrives as an ExternalCopy: copied in here, inside the call, where running out
// of memory stops this isolate only.
function received(copy) {
  const content = copy.copy({ transferIn: true });
  copy.release();
  return content;
}

// ASCII bytes as a string, a chunk at a time (fromCharCode takes its arguments on the stack).
function asciiText(buffer) {
  const bytes = new Bytes(buffer);
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += apply(fromCharCode, undefined, apply(subarray, bytes, [i, i + 8192]));
  return out;
}

function settle(reply) {
  if (reply.ok === true) return reply.value;
  throw new ErrorCtor(reply.message);
}

// \`object\` as the plugin sees it: the same members, but reading one of \`absent\` (a member
// its tool.yaml did not grant: it stays undefined) is noted, so that the TypeError which
// follows can be explained to the plugin's author.
function noting(object, absent, prefix) {
  if (keysOf(absent).length === 0) return object;
  return new ProxyCtor(object, {
    __proto__: null,
    get(target, key) {
      if (typeof key === "string" && absent[key] === true) absentRead[prefix + key] = true;
      return target[key];
    },
  });
}

function makeRuntime(token) {
  // A reply is the JSON of {ok, value | message}, as a string or as an ExternalCopy of one; or an
  // ExternalCopy of ASCII bytes holding the JSON of a successful reply's value (a file's text,
  // which then never becomes a string on the host).
  async function call(op, payload) {
    const raw = await dispatchRef.apply(undefined, [token, op, stringify(payload)], applyOptions);
    if (typeof raw === "string") return settle(parse(raw));
    const content = received(raw);
    return typeof content === "string" ? settle(parse(content)) : parse(asciiText(content));
  }
  const runtime = {};
  if (shape.fsRead || shape.fsWrite) {
    const fs = {};
    if (shape.fsRead) {
      fs.readText = (path) => call("fs.readText", { path });
      fs.list = (dir) => call("fs.list", { path: dir });
    }
    if (shape.fsWrite) fs.writeText = (path, content) => call("fs.writeText", { path, text: content });
    const missing = !shape.fsRead ? { __proto__: null, readText: true, list: true } : shape.fsWrite ? { __proto__: null } : { __proto__: null, writeText: true };
    runtime.fs = noting(freeze(fs), missing, "fs.");
  }
  if (shape.net) runtime.net = freeze({ fetch: (url, init) => call("net.fetch", { url, init }) });
  if (shape.shell) runtime.shell = freeze({ run: (cmd, argv) => call("shell.run", { cmd, argv }) });
  runtime.log = (...args) => log(args);
  const absent = { __proto__: null };
  if (!shape.fsRead && !shape.fsWrite) absent.fs = true;
  if (!shape.net) absent.net = true;
  if (!shape.shell) absent.shell = true;
  return noting(freeze(runtime), absent, "");
}

async function run(token, argsJson) {
  logLines = 0;
  absentRead = { __proto__: null };
  let value;
  try {
    value = await execute(parse(argsJson), makeRuntime(token));
  } catch (error) {
    const bare = bareThrow(error);
    const absent = error instanceof TypeErrorCtor ? keysOf(absentRead) : undefined;
    return stringify({ ok: false, kind: "thrown", message: bare ? shownThrow(error) : messageOf(error), bare, stack: stackOf(error), absent, restart: restartAfterCall });
  }
  try {
    // "restart" only when set, and never after the value: the host takes a large reply's value
    // as the text between '{"ok":true,"value":' and the last brace.
    const json = (value === undefined ? undefined : serialize(value)) ?? "null";
    return (restartAfterCall ? '{"ok":true,"restart":true,"value":' : '{"ok":true,"value":') + json + "}";
  } catch (error) {
    return stringify({ ok: false, kind: "result", message: messageOf(error), restart: restartAfterCall });
  }
}

const forward = (...args) => log(args);
globalThis.console = freeze({ log: forward, info: forward, warn: forward, error: forward, debug: forward });

return function install(fn) {
  if (typeof fn !== "function") return undefined;
  execute = fn;
  return run;
};
`;
