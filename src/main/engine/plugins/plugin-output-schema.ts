import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { JsonSchema } from "../tools/contract.ts";
import { jsonSchemaLibrary } from "../tools/json-schema-library.ts";
import { referenceProblem, schemaProblem } from "../tools/schema-check.ts";
import { keptCopy } from "../tools/schema-copies.ts";

// A plugin's output_schema: checked when its manifest is parsed, and each result checked against
// it, by a validator made when either first happens.
let instance: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  if (instance) return instance;
  const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
  instance = new Validator({ allErrors: true, strict: false, coerceTypes: false });
  // Formats are checked, as in input schemas and MCP output schemas ("date-time", "email", "uri").
  addFormats(instance);
  return instance;
}

function where(err: ErrorObject): string {
  const pointer = err.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return pointer.length === 0 ? "the result" : `"${pointer.join(".")}"`;
}

/** Check an output schema against the JSON Schema meta-schema, and its `$ref`s; the problem, or undefined. */
export function checkOutputSchema(schema: JsonSchema): string | undefined {
  return (
    schemaProblem(schema, "output_schema") ??
    referenceProblem(schema, "output_schema", ({ $schema: _ignored, ...rest }) => ajv().compile(rest))
  );
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
    validate ??= ajv().compile(rest);
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

/** A result to check in a worker thread against its plugin's output_schema. */
export interface OutputCheckInput {
  toolId: string;
  entryFile: string;
  schema: JsonSchema;
  value: unknown;
}

/** Output checks made in a worker thread, per kept schema copy, by tool and entry file. */
const checksInWorker = new WeakMap<JsonSchema, Map<string, (value: unknown) => void>>();

/**
 * outputValidator's check for a result checked in a worker thread, where the schema arrives as a
 * copy with every job: the check made for an equal schema before is used again, not compiled anew.
 */
export function checkOutputCopy(input: OutputCheckInput): void {
  const schema = keptCopy(input.schema);
  let byTool = checksInWorker.get(schema);
  if (!byTool) {
    byTool = new Map();
    checksInWorker.set(schema, byTool);
  }
  const key = `${input.toolId}\n${input.entryFile}`;
  let check = byTool.get(key);
  if (!check) {
    check = outputValidator(input.toolId, schema, input.entryFile);
    byTool.set(key, check);
  }
  check(input.value);
}
