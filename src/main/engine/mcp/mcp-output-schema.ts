import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { describeSchemaError } from "../tools/argument-validator.ts";
import type { JsonSchema } from "../tools/contract.ts";
import { jsonSchemaLibrary } from "../tools/json-schema-library.ts";

/**
 * The check MCP asks of a client: a tool that declares an output schema answers a structured
 * result that fits it. Lathe checks it against the schema of the tool it bound (the SDK's client
 * keeps only the last `tools/list` page's schemas, and would check a name listed twice against
 * the wrong one), and says what went wrong as the tool's answer, not as a refusal: the tool ran.
 */

let instance: Ajv2020 | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validator(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    if (!instance) {
      const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
      // Nothing filled in or coerced: the answer is checked as the server sent it.
      instance = new Validator({ allErrors: true, strict: false, validateSchema: false });
      addFormats(instance);
    }
    const { $schema: _ignored, ...rest } = schema;
    fn = instance.compile(rest);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Throws when an output schema is not valid JSON Schema (checked when the tool is bound). */
export function assertOutputSchemaCompiles(schema: JsonSchema): void {
  validator(schema);
}

/** What is wrong with a result's structured part for the tool's `outputSchema`, or undefined when it fits. */
export function structuredResultProblem(schema: JsonSchema, structured: unknown): string | undefined {
  if (structured === undefined) return "it sent no structured result, though its output schema promises one";
  const fn = validator(schema);
  if (fn(structured)) return undefined;
  const problems = [...new Set((fn.errors ?? []).map((err) => describeSchemaError(err, "the result")))];
  const shown = problems.slice(0, 5).join("; ");
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
  return `its structured result does not fit the tool's own output schema (${shown}${more})`;
}
