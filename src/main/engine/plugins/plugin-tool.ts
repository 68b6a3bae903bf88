import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolDefinition, ToolRuntime } from "../tools/contract.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { BridgeLimiter } from "./bridge-concurrency.ts";
import { EncodedJson } from "./encoded-json.ts";
import type { IsolateHost } from "./isolate-host.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { truncateResult } from "./plugin-output.ts";
import { checkOutputOffThread } from "./plugin-output-check.ts";
import { largeResult } from "./plugin-result.ts";
import type { BridgeServices } from "./plugin-runtime-bridge.ts";

interface PluginToolInput {
  manifest: PluginManifest;
  /** TOOL.md: when to use the tool, when not, examples; appended to the description. */
  toolMd: string | undefined;
  entryFile: string;
  host: IsolateHost;
  services?: BridgeServices;
}

/** What the model reads about a plugin: its one-line description, then its TOOL.md. */
function pluginDescription(manifest: PluginManifest, toolMd: string | undefined): string {
  const guide = toolMd?.trim();
  return guide ? `${manifest.description}\n\n${guide}` : manifest.description;
}

/**
 * A plugin as a ToolDefinition: the pipeline validates its arguments against the (strict) input
 * schema, runs the policy on the call, then `execute` runs the plugin's `execute` in its isolate
 * with a `runtime` whose every access is authorized on the host, and checks the result against
 * `output_schema` when there is one.
 */
export function pluginTool(input: PluginToolInput): ToolDefinition<Record<string, unknown>, unknown> {
  const { manifest, host } = input;
  // One per plugin: its calls run one at a time, but their runtime requests share these caps.
  const limiter = new BridgeLimiter(manifest.name);
  /** Calls of this plugin running or waiting for its isolate. */
  let calls = 0;
  // The runtime bridges (files, network, shell parser) and the output check (a JSON Schema
  // validator) load with the plugin's first call, not when fifty plugins register.
  let check: ((value: unknown) => void) | undefined;
  const outputCheck = async (): Promise<((value: unknown) => void) | undefined> => {
    if (!manifest.outputSchema) return undefined;
    const { outputValidator } = await import("./plugin-output-schema.ts");
    check ??= outputValidator(manifest.name, manifest.outputSchema, input.entryFile);
    return check;
  };
  return {
    id: manifest.name,
    description: pluginDescription(manifest, input.toolMd),
    parameters: manifest.inputSchema,
    requires: manifest.requires,
    readOnly: manifest.readOnly,
    gated: manifest.gated,
    kind: manifest.kind,
    timeoutMs: manifest.timeoutMs,
    // The isolate stops the call at timeoutMs (see IsolateHost.call) and says what happened; the
    // pipeline's own, generic timeout is only the backstop. The isolate runs one call at a time,
    // so a call waits for those ahead of it: each of them, and this one, may take its full time.
    // (Counted here, not by the host: a call reaches the host's queue only after an await.)
    callTimeoutMs: () => (calls + 1) * (manifest.timeoutMs + PLUGIN_LIMITS.stopGraceMs),
    enabled: true,
    defer: manifest.defer,
    deriveApprovalKey: (args) => `${manifest.name}:${stableStringify(args)}`,
    async execute(args, runtime) {
      calls++;
      // What the call's runtime requests started ends with the call. A call that returns has
      // waited for them; one its isolate stopped (timeout, CPU, memory) has not, and its
      // commands, fetches and approval prompts would otherwise run on after its error.
      const ended = new AbortController();
      const requests: ToolRuntime = { ...runtime, signal: AbortSignal.any([runtime.signal, ended.signal]) };
      try {
        const { runtimeBridge } = await import("./plugin-runtime-bridge.ts");
        const value = await host.call(args, {
          dispatch: runtimeBridge(manifest.name, manifest.requires, requests, limiter, input.services),
          wallTimeoutMs: manifest.timeoutMs,
          signal: runtime.signal,
        });
        if (value instanceof EncodedJson) return largeResult(manifest, input.entryFile, value, runtime);
        const schema = manifest.outputSchema;
        const checked =
          schema !== undefined &&
          (await checkOutputOffThread(manifest.name, input.entryFile, schema, value, runtime.signal));
        if (!checked) (await outputCheck())?.(value);
        return value;
      } finally {
        ended.abort(new ToolCallError(`the ${manifest.name} call that made this request has ended.`));
        calls--;
      }
    },
    truncate: truncateResult,
  };
}
