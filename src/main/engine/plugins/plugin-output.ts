import { writeFileSync } from "node:fs";
import type { JsonSchema, Truncation } from "../tools/contract.ts";
import { textLeftOut, utf8Head, type LeftOut } from "../tools/truncation.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { jsonShapeProblem, unusableResultMessage } from "../tools/json-shape.ts";

/**
 * Cut a large result to what the model sees: a long string keeps its head; any other value
 * larger than the limit as JSON becomes the head of its JSON text. The sidecar gets it whole.
 */
export function truncateResult(data: unknown): Truncation<unknown> | undefined {
  const max = PLUGIN_LIMITS.resultHeadBytes;
  if (typeof data === "string") {
    const head = utf8Head(data, max);
    return head.length === data.length
      ? undefined
      : { data: head, full: data, leftOut: textLeftOut(data, head) };
  }
  const json = JSON.stringify(data, null, 2) ?? "null";
  if (json.length <= max / 4 || Buffer.byteLength(json, "utf8") <= max) return undefined;
  const head = utf8Head(json, max);
  return { data: head, full: json, leftOut: textLeftOut(json, head) };
}

export interface LargeResultInput {
  /** The result as the JSON text the plugin's isolate produced. */
  json: string;
  toolId: string;
  entryFile: string;
  outputSchema?: JsonSchema;
  /** Where to write the whole result when the model is to see only its head. */
  sidecarPath?: string;
}

type LargeResult =
  | { kind: "invalid"; message: string }
  | { kind: "cut"; head: unknown; leftOut?: LeftOut }
  | { kind: "whole"; value: unknown };

/**
 * A large plugin result, settled on an offload worker: parsed, checked against the plugin's
 * `output_schema`, and cut to its head with the whole written to the sidecar, so none of that
 * costs the event loop time in proportion to the result. When the sidecar cannot be written the
 * whole value goes back, and the pipeline's own truncation tries again and reports the failure.
 */
export async function settleLargeResult(input: LargeResultInput): Promise<LargeResult> {
  const value: unknown = JSON.parse(input.json);
  const problem = jsonShapeProblem(value);
  if (problem !== undefined)
    return { kind: "invalid", message: unusableResultMessage(input.toolId, problem) };
  if (input.outputSchema) {
    const { checkOutputCopy } = await import("./plugin-output-schema.ts");
    try {
      checkOutputCopy({
        toolId: input.toolId,
        entryFile: input.entryFile,
        schema: input.outputSchema,
        value,
      });
    } catch (err) {
      return { kind: "invalid", message: (err as Error).message };
    }
  }
  const cut = truncateResult(value);
  if (!cut || input.sidecarPath === undefined) return { kind: "whole", value };
  try {
    writeFileSync(input.sidecarPath, cut.full, { mode: 0o600 });
  } catch {
    return { kind: "whole", value };
  }
  return { kind: "cut", head: cut.data, ...(cut.leftOut ? { leftOut: cut.leftOut } : {}) };
}
