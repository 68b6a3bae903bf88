import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import { offload } from "../offload/offload.ts";
import type { LookupAll } from "../builtin/web/fetch-target.ts";
import { spawnTurn, type BridgeLimiter } from "./bridge-concurrency.ts";
import { pluginFetch } from "./bridge-fetch.ts";
import { pluginList, pluginReadText, pluginWriteBytes } from "./bridge-fs.ts";
import { pluginShellRun } from "./bridge-shell.ts";
import { runtimeShape } from "./isolate-bootstrap.ts";
import type { RuntimeDispatch } from "./isolate-host.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";

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
  return pluginWriteBytes(runtime, prepared.path, prepared.bytes);
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

export interface BridgeServices {
  /** How host names resolve for runtime.net.fetch (tests inject one); default: system DNS. */
  lookup?: LookupAll;
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
  services: BridgeServices = {},
): RuntimeDispatch {
  const shape = runtimeShape(requires);
  const { signal } = runtime;
  return async (op, json) => {
    switch (op) {
      case "fs.readText":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.readText", "requires.fs.read");
        return limiter.run(
          "fs",
          async () => pluginReadText(runtime, (await payload(op, PathPayload, json, signal)).path),
          signal,
        );
      case "fs.list":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.list", "requires.fs.read");
        return limiter.run(
          "fs",
          async () => pluginList(runtime, (await payload(op, PathPayload, json, signal)).path),
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
            return pluginFetch(runtime, p.url, p.init ?? {}, {
              toolId,
              hosts: requires.net?.hosts ?? [],
              ...(services.lookup ? { lookup: services.lookup } : {}),
            });
          },
          signal,
        );
      case "shell.run":
        if (!shape.shell) throw undeclared(toolId, "runtime.shell.run", "requires.shell");
        return limiter.run(
          "shell",
          async () => {
            const p = await payload(op, ShellPayload, json, signal);
            return pluginShellRun(spawnsOnItsOwnTurn(runtime), p.cmd, p.argv ?? [], requires);
          },
          signal,
        );
      default:
        throw new ToolCallError(`runtime has no operation "${op}".`);
    }
  };
}
