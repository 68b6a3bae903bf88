import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ResolvedAccess } from "../policy/call-plan.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { transferList } from "../offload/job-result.ts";
import { offload } from "../offload/offload.ts";
import { spawnTurn, type BridgeLimiter } from "./bridge-concurrency.ts";
import { pluginFetch } from "./bridge-fetch.ts";
import { pluginShellRun } from "./bridge-shell.ts";
import { AsciiJson, EncodedJson } from "./encoded-json.ts";
import type { RuntimeShape } from "./isolate-bootstrap.ts";
import type { RuntimeDispatch } from "./isolate-host.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

/** The `runtime` members a RequirementSet grants. */
export function runtimeShape(requires: RequirementSet): RuntimeShape {
  return {
    fsRead: (requires.fs?.read?.length ?? 0) > 0,
    fsWrite: (requires.fs?.write?.length ?? 0) > 0,
    net: (requires.net?.hosts?.length ?? 0) > 0,
    shell: (requires.shell?.length ?? 0) > 0,
  };
}

const PathPayload = z.object({ path: z.string() });
const FetchPayload = z.object({
  url: z.string(),
  init: z
    .object({
      method: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().optional(),
    })
    .nullish(),
});
const ShellPayload = z.object({ cmd: z.string().min(1), argv: z.array(z.string()).nullish() });

const USAGE: Record<string, string> = {
  "fs.readText": "runtime.fs.readText(path) takes a path (a string) relative to the workspace",
  "fs.list": "runtime.fs.list(dir) takes a folder path (a string) relative to the workspace",
  "fs.writeText": "runtime.fs.writeText(path, text) takes a path and the text to write, both strings",
  "net.fetch":
    "runtime.net.fetch(url, {method, headers, body}) takes a URL string, and strings for method, header values and body",
  "shell.run": "runtime.shell.run(cmd, argv) takes a command name and an array of string arguments",
};

function usage(op: string): ToolCallError {
  return new ToolCallError(`${USAGE[op] ?? op}.`);
}

/** Payloads longer than this are parsed on an offload worker, not on the main thread. */
const PARSE_INLINE_CHARS = 64 * 1024;

async function payload<T>(op: string, schema: z.ZodType<T>, json: string, signal: AbortSignal): Promise<T> {
  let value: unknown;
  try {
    value =
      json.length <= PARSE_INLINE_CHARS
        ? JSON.parse(json)
        : await offload("json.parse", { json }, { signal });
  } catch {
    throw usage(op);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw usage(op);
  return parsed.data;
}

type FsAccess = Extract<ResolvedAccess, { capability: "fs.read" | "fs.write" }>;

function fsAccess(access: ResolvedAccess, capability: FsAccess["capability"]): FsAccess {
  if (access.capability !== capability)
    throw new Error(`authorize returned ${access.capability} for ${capability}`);
  return access as FsAccess;
}

async function readText(runtime: ToolRuntime, input: string): Promise<AsciiJson> {
  const access = fsAccess(await runtime.authorize({ capability: "fs.read", path: input }), "fs.read");
  const stats = await runtime.fs.stat(access.path);
  if (stats?.isFile() && stats.size > PLUGIN_LIMITS.readBytes) {
    throw new ToolCallError(
      `${access.path.display} is ${stats.size} bytes, more than runtime.fs.readText reads (${PLUGIN_LIMITS.readBytes}).`,
    );
  }
  const { bytes } = await runtime.fs.readBytes(access.path);
  // Decoded and JSON-encoded on a worker; the main thread only hands the bytes to the isolate.
  return new AsciiJson(
    await offload("plugin.textJson", { bytes }, { signal: runtime.signal, transfer: transferList(bytes) }),
  );
}

async function list(runtime: ToolRuntime, input: string): Promise<EncodedJson> {
  const access = fsAccess(await runtime.authorize({ capability: "fs.read", path: input }), "fs.read");
  const stats = await runtime.fs.stat(access.path);
  if (!stats) throw new ToolCallError(`Folder not found: ${access.path.display}.`);
  if (!stats.isDirectory())
    throw new ToolCallError(
      `${access.path.display} is a file, not a folder; read it with runtime.fs.readText.`,
    );
  // Listed, sorted and encoded on a worker: a huge folder costs the main thread nothing.
  return new EncodedJson(
    await offload(
      "plugin.listJson",
      { dir: access.path.absolute, maxEntries: PLUGIN_LIMITS.listEntries },
      { signal: runtime.signal },
    ),
  );
}

async function writeText(
  runtime: ToolRuntime,
  payloadJson: string,
): Promise<{ path: string; bytes: number }> {
  // Parsed and encoded on a worker: the main thread sees the path and the finished bytes.
  const prepared = await offload(
    "plugin.writePayload",
    { payloadJson, maxBytes: PLUGIN_LIMITS.writeBytes },
    { signal: runtime.signal },
  );
  if (!prepared.ok) {
    if (prepared.problem === "shape") throw usage("fs.writeText");
    throw new ToolCallError(
      `runtime.fs.writeText was given ${prepared.bytes} bytes of text, more than it writes at once (${PLUGIN_LIMITS.writeBytes}). Write smaller files.`,
    );
  }
  const access = fsAccess(
    await runtime.authorize({ capability: "fs.write", path: prepared.path }),
    "fs.write",
  );
  await runtime.fs.writeAtomic(access.path, prepared.bytes);
  return { path: access.path.display, bytes: prepared.bytes.length };
}

/**
 * The runtime `runtime.shell.run` gets: once a command is authorized, it waits for a loop turn
 * of its own (see spawnTurn) before it goes on to spawn, so queued commands let go together
 * start one per turn.
 */
function spawnsOnItsOwnTurn(runtime: ToolRuntime): ToolRuntime {
  return {
    ...runtime,
    authorize: async (access) => {
      const resolved = await runtime.authorize(access);
      await spawnTurn();
      runtime.signal.throwIfAborted();
      return resolved;
    },
  };
}

function undeclared(toolId: string, member: string, field: string): ToolCallError {
  return new ToolCallError(
    `${toolId} did not declare ${field} in its tool.yaml, so ${member} is not available to it.`,
    "capability_denied",
  );
}

/**
 * The host half of a plugin's `runtime` for one call. Every request is checked against what the
 * plugin declared, then put through `runtime.authorize` (capability check, rules, watchdog,
 * approval — the same stages as a built-in's planned access) before anything is touched, and
 * the work is done on the checked access only. The plugin's `limiter` caps how many requests of
 * each family run at once (the rest wait, a flood is refused); a request's payload is not even
 * parsed before its turn comes.
 */
export function runtimeBridge(
  toolId: string,
  requires: RequirementSet,
  runtime: ToolRuntime,
  limiter: BridgeLimiter,
): RuntimeDispatch {
  const shape = runtimeShape(requires);
  const { signal } = runtime;
  return async (op, json) => {
    switch (op) {
      case "fs.readText":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.readText", "requires.fs.read");
        return limiter.run(
          "fs",
          async () => readText(runtime, (await payload(op, PathPayload, json, signal)).path),
          signal,
        );
      case "fs.list":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.list", "requires.fs.read");
        return limiter.run(
          "fs",
          async () => list(runtime, (await payload(op, PathPayload, json, signal)).path),
          signal,
        );
      case "fs.writeText":
        if (!shape.fsWrite) throw undeclared(toolId, "runtime.fs.writeText", "requires.fs.write");
        return limiter.run("fs", () => writeText(runtime, json), signal);
      case "net.fetch":
        if (!shape.net) throw undeclared(toolId, "runtime.net.fetch", "requires.net.hosts");
        return limiter.run(
          "net",
          async () => {
            const p = await payload(op, FetchPayload, json, signal);
            return pluginFetch(runtime, p.url, p.init ?? {});
          },
          signal,
        );
      case "shell.run":
        if (!shape.shell) throw undeclared(toolId, "runtime.shell.run", "requires.shell");
        return limiter.run(
          "shell",
          async () => {
            const p = await payload(op, ShellPayload, json, signal);
            return pluginShellRun(spawnsOnItsOwnTurn(runtime), p.cmd, p.argv ?? []);
          },
          signal,
        );
      default:
        throw new ToolCallError(`runtime has no operation "${op}".`);
    }
  };
}
