import { ToolCallError } from "../errors/tool-call-error.ts";
import { offload } from "../offload/offload.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { selfTruncated, type SelfTruncated } from "../tools/truncation.ts";
import type { EncodedJson } from "./encoded-json.ts";
import type { PluginManifest } from "./plugin-manifest.ts";

/**
 * A large result of a plugin call (see IsolateHost.call), settled on an offload worker: checked
 * against the plugin's output_schema and cut to the head the model sees, the whole in a sidecar.
 * The main thread never parses or serialises it.
 */
export async function largeResult(
  manifest: PluginManifest,
  entryFile: string,
  encoded: EncodedJson,
  runtime: ToolRuntime,
): Promise<unknown> {
  // A sidecar that cannot be made here is left to the pipeline, which tries again and reports it.
  const sidecarPath = await runtime.session.newSidecarPath(manifest.name).catch(() => undefined);
  const settled = await offload(
    "plugin.largeResult",
    {
      json: encoded.json,
      toolId: manifest.name,
      entryFile,
      ...(manifest.outputSchema ? { outputSchema: manifest.outputSchema } : {}),
      ...(sidecarPath === undefined ? {} : { sidecarPath }),
    },
    { signal: runtime.signal },
  );
  if (settled.kind === "invalid") throw new ToolCallError(settled.message, "plugin_output");
  if (settled.kind === "cut" && sidecarPath !== undefined) {
    return selfTruncated(settled.head, sidecarPath, settled.leftOut) satisfies SelfTruncated<unknown>;
  }
  return settled.kind === "whole" ? settled.value : settled.head;
}
