import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import type { RequirementSet } from "../tools/requirement-set.ts";
import type { LookupAll } from "../builtin/web/fetch-target.ts";
import { pluginFetch } from "./bridge-fetch.ts";
import { pluginList, pluginReadText, pluginWriteText } from "./bridge-fs.ts";
import { pluginShellRun } from "./bridge-shell.ts";
import type { RuntimeShape } from "./isolate-bootstrap.ts";
import type { RuntimeDispatch } from "./isolate-host.ts";

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
const WritePayload = z.object({ path: z.string(), text: z.string() });
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

function payload<T>(op: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ToolCallError(`${USAGE[op] ?? op}.`);
  return parsed.data;
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
 * the work is done on the checked access only.
 */
export interface BridgeServices {
  /** How host names resolve for runtime.net.fetch (tests inject one); default: system DNS. */
  lookup?: LookupAll;
}

export function runtimeBridge(
  toolId: string,
  requires: RequirementSet,
  runtime: ToolRuntime,
  services: BridgeServices = {},
): RuntimeDispatch {
  const shape = runtimeShape(requires);
  return async (op, value) => {
    switch (op) {
      case "fs.readText":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.readText", "requires.fs.read");
        return pluginReadText(runtime, payload(op, PathPayload, value).path);
      case "fs.list":
        if (!shape.fsRead) throw undeclared(toolId, "runtime.fs.list", "requires.fs.read");
        return pluginList(runtime, payload(op, PathPayload, value).path);
      case "fs.writeText": {
        if (!shape.fsWrite) throw undeclared(toolId, "runtime.fs.writeText", "requires.fs.write");
        const p = payload(op, WritePayload, value);
        return pluginWriteText(runtime, p.path, p.text);
      }
      case "net.fetch": {
        if (!shape.net) throw undeclared(toolId, "runtime.net.fetch", "requires.net.hosts");
        const p = payload(op, FetchPayload, value);
        return pluginFetch(runtime, p.url, p.init ?? {}, {
          toolId,
          hosts: requires.net?.hosts ?? [],
          ...(services.lookup ? { lookup: services.lookup } : {}),
        });
      }
      case "shell.run": {
        if (!shape.shell) throw undeclared(toolId, "runtime.shell.run", "requires.shell");
        const p = payload(op, ShellPayload, value);
        return pluginShellRun(runtime, p.cmd, p.argv ?? [], requires);
      }
      default:
        throw new ToolCallError(`runtime has no operation "${op}".`);
    }
  };
}
