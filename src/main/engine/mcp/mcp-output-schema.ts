import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { offload } from "../offload/offload.ts";
import { JobTimeoutError } from "../offload/worker-pool.ts";
import { PATTERN_CHECK_MS, slowPatternReason } from "../tools/argument-check.ts";
import { describeSchemaError, listProblems } from "../tools/argument-validator.ts";
import type { JsonSchema } from "../tools/contract.ts";
import { jsonSchemaLibrary } from "../tools/json-schema-library.ts";
import { quickOnThisThread } from "../tools/pattern-cost.ts";
import { schemaRegexes, shapeProblem } from "../tools/schema-check.ts";
import { keptCopy } from "../tools/schema-copies.ts";

/**
 * The check MCP asks of a client: a tool that declares an output schema answers a structured
 * result that fits it. Lathe checks it against the schema of the tool it bound (the SDK's client
 * keeps only the last `tools/list` page's schemas, and would check a name listed twice against
 * the wrong one), and says what went wrong as the tool's answer, not as a refusal: the tool ran.
 */

let instance: Ajv2020 | undefined;

/** A schema the validator could not compile: why, thrown again at every use. */
class CompileFailure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const compiled = new WeakMap<JsonSchema, ValidateFunction | CompileFailure>();

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
    try {
      fn = instance.compile(rest);
    } catch (err) {
      fn = new CompileFailure(err);
    }
    compiled.set(schema, fn);
  }
  if (fn instanceof CompileFailure) throw fn.error;
  return fn;
}

/**
 * Compile an output schema's validator now, as a server's tool list arrives, rather than when
 * its tools are bound (after every server has answered): the validator library loads and the
 * schema compiles while the other servers are still starting. What it finds wrong is kept for
 * assertOutputSchemaCompiles to throw when the tool is bound, which refuses the tool saying why.
 */
export function compileOutputSchemaAhead(schema: JsonSchema): void {
  if (compiled.has(schema) || shapeProblem(schema, "outputSchema") !== undefined) return;
  try {
    validator(schema);
  } catch {
    // Thrown again when the tool is bound (assertOutputSchemaCompiles), which refuses it saying why.
  }
}

/** Throws when an output schema is not valid JSON Schema (checked when the tool is bound). */
export function assertOutputSchemaCompiles(schema: JsonSchema): void {
  const problem = shapeProblem(schema, "outputSchema");
  if (problem !== undefined) throw new Error(problem);
  validator(schema);
}

/** What is wrong with a result's structured part for the tool's `outputSchema`, or undefined when it fits. */
export function structuredResultProblem(schema: JsonSchema, structured: unknown): string | undefined {
  if (structured === undefined) return "it sent no structured result, though its output schema promises one";
  const fn = validator(schema);
  if (fn(structured)) return undefined;
  const problems = [...new Set((fn.errors ?? []).map((err) => describeSchemaError(err, "the result")))];
  return `its structured result does not fit the tool's own output schema (${listProblems(problems)})`;
}

/** structuredResultProblem in a worker thread (see checkStructuredResult): the schema arrives as a copy. */
export function structuredResultProblemOfCopy(input: {
  schema: JsonSchema;
  structured: unknown;
}): string | undefined {
  return structuredResultProblem(keptCopy(input.schema), input.structured);
}

/**
 * structuredResultProblem, bounded: against an output schema that holds a regular expression
 * whose cost on this result is not bounded (quickOnThisThread), the result is checked on a worker thread for at most PATTERN_CHECK_MS (a pattern can backtrack for
 * hours on one value, which here would freeze every session), and a check stopped is the problem.
 * Rejects with the signal's reason when it aborts.
 */
export async function checkStructuredResult(
  schema: JsonSchema,
  structured: unknown,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const patterns = schemaRegexes(schema);
  if (patterns.length === 0 || structured === undefined || quickOnThisThread(patterns, structured))
    return structuredResultProblem(schema, structured);
  try {
    return await offload(
      "mcp.structuredResult",
      { schema, structured },
      { timeoutMs: PATTERN_CHECK_MS, ...(signal ? { signal } : {}) },
    );
  } catch (err) {
    if (!(err instanceof JobTimeoutError)) throw err;
    return `checking its structured result against the tool's output schema was stopped after ${PATTERN_CHECK_MS / 1000} s, ${slowPatternReason(patterns, "a value in it")}`;
  }
}
