import { writeFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { JsonSchema, Truncation } from "../tools/contract.ts";
import { utf8Head } from "../tools/truncation.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { jsonShapeProblem, unusableResultMessage } from "../tools/json-shape.ts";

const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false });

function where(err: ErrorObject): string {
  const pointer = err.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return pointer.length === 0 ? "the result" : `"${pointer.join(".")}"`;
}

/** Check an output schema against the JSON Schema meta-schema; the problem, or undefined. */
export function checkOutputSchema(schema: JsonSchema): string | undefined {
  const { $schema: _ignored, ...rest } = schema;
  if (ajv.validateSchema(rest) === true) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: "output_schema" });
}

/**
 * A check of a plugin's result against its `output_schema`. A mismatch throws ToolCallError:
 * the call fails with an error envelope that says the plugin, not the model, is at fault.
 */
export function outputValidator(
  toolId: string,
  schema: JsonSchema,
  entryFile: string,
): (value: unknown) => void {
  const { $schema: _ignored, ...rest } = schema;
  // Compiled on first use: loading fifty plugins should not pay for fifty compilations.
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= ajv.compile(rest);
    if (validate(value)) return;
    const problems = [
      ...new Set((validate.errors ?? []).map((e) => `${where(e)} ${e.message ?? "is invalid"}`)),
    ];
    throw new ToolCallError(
      `${toolId} returned a result that does not match its output_schema: ${problems.slice(0, 5).join("; ")}. This is a bug in the plugin (${entryFile}), not in the call; do not retry it, tell the user.`,
      "plugin_output",
    );
  };
}

/**
 * Cut a large result to what the model sees: a long string keeps its head; any other value
 * larger than the limit as JSON becomes the head of its JSON text. The sidecar gets it whole.
 */
export function truncateResult(data: unknown): Truncation<unknown> | undefined {
  const max = PLUGIN_LIMITS.resultHeadBytes;
  if (typeof data === "string") {
    const head = utf8Head(data, max);
    return head.length === data.length ? undefined : { data: head, full: data };
  }
  const json = JSON.stringify(data, null, 2) ?? "null";
  if (json.length <= max / 4 || Buffer.byteLength(json, "utf8") <= max) return undefined;
  return { data: utf8Head(json, max), full: json };
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

export type LargeResult =
  { kind: "invalid"; message: string } | { kind: "cut"; head: unknown } | { kind: "whole"; value: unknown };

/**
 * A large plugin result, settled on an offload worker: parsed, checked against the plugin's
 * `output_schema`, and cut to its head with the whole written to the sidecar, so none of that
 * costs the event loop time in proportion to the result. When the sidecar cannot be written the
 * whole value goes back, and the pipeline's own truncation tries again and reports the failure.
 */
export function settleLargeResult(input: LargeResultInput): LargeResult {
  const value: unknown = JSON.parse(input.json);
  const problem = jsonShapeProblem(value);
  if (problem !== undefined)
    return { kind: "invalid", message: unusableResultMessage(input.toolId, problem) };
  if (input.outputSchema) {
    try {
      outputValidator(input.toolId, input.outputSchema, input.entryFile)(value);
    } catch (err) {
      return { kind: "invalid", message: (err as Error).message };
    }
  }
  const cut = truncateResult(value);
  if (!cut || input.sidecarPath === undefined) return { kind: "whole", value };
  try {
    writeFileSync(input.sidecarPath, cut.full);
  } catch {
    return { kind: "whole", value };
  }
  return { kind: "cut", head: cut.data };
}
