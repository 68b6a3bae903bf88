import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "./contract.ts";
import { jsonSchemaLibrary } from "./json-schema-library.ts";
import { referenceProblem, schemaProblem } from "./schema-check.ts";

/** How arguments are validated (also how the bundle compiles the built-ins' validators). */
export const ARGUMENT_VALIDATION = {
  allErrors: true,
  strict: false,
  useDefaults: true,
  coerceTypes: false,
  validateSchema: false,
} as const;

let instance: Ajv2020 | undefined;

/**
 * One validator for the process, made on first use. It does not check schemas against the
 * meta-schema when it compiles them: every schema it compiles was checked when its tool was
 * registered (assertCompilable below, or parsing its plugin's manifest), and compiling the
 * meta-schema for nothing would double the cost of a one-call process.
 */
function ajv(): Ajv2020 {
  if (instance) return instance;
  const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
  instance = new Validator(ARGUMENT_VALIDATION);
  // Schemas from plugins and MCP servers use formats ("uri", "email", "date-time"): check them.
  addFormats(instance);
  return instance;
}

const cache = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * Use `validate` for `schema` (the object a tool publishes): a validator compiled ahead of time
 * from exactly that schema, as the CLI bundle carries for the built-ins (builtin-catalog.ts).
 */
export function usePrecompiled(schema: JsonSchema, validate: ValidateFunction): void {
  cache.set(schema, validate);
}

function compile(schema: JsonSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    const { $schema: _ignored, ...rest } = schema;
    fn = ajv().compile(rest);
    cache.set(schema, fn);
  }
  return fn;
}

/**
 * Throws when a schema itself is invalid (checked against the JSON Schema meta-schema, and each
 * `$ref` it holds found), so a broken tool is caught at registration. Compiling the validator
 * otherwise waits for the tool's first call: startup does not pay for tools never called.
 */
export function assertCompilable(schema: JsonSchema): void {
  const problem = schemaProblem(schema, "schema") ?? referenceProblem(schema, "schema", compile);
  if (problem !== undefined) throw new Error(problem);
}

function where(err: ErrorObject, root: string): string {
  const pointer = err.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return pointer.length === 0 ? root : `"${pointer.join(".")}"`;
}

/** One schema error as a person reads it: `"a.b" must be number`, `missing required property "x"`. */
export function describeSchemaError(err: ErrorObject, root = "the arguments"): string {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case "required":
      return `missing required property "${String(p.missingProperty)}"`;
    case "additionalProperties":
      return `unknown property "${String(p.additionalProperty)}" in ${where(err, root)}`;
    case "type":
      return `${where(err, root)} must be ${String(p.type)}`;
    case "enum":
      return `${where(err, root)} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${where(err, root)} ${err.message ?? "is invalid"}`;
  }
}

/**
 * Validate model arguments against a tool's JSON Schema. Returns undefined when they are valid
 * (defaults filled in place), or a message that says what is wrong and how to fix the call.
 */
export function validateArguments(toolId: string, schema: JsonSchema, args: unknown): string | undefined {
  const fn = compile(schema);
  if (fn(args)) return undefined;
  const problems = [...new Set((fn.errors ?? []).map((err) => describeSchemaError(err)))];
  const props = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const expected = props.length > 0 ? ` Expected properties: ${props.join(", ")}.` : "";
  return `Invalid arguments for ${toolId}: ${problems.join("; ")}.${expected} Fix the arguments and call ${toolId} again.`;
}

/** Schemas a worker has validated against, by their JSON: each arrives as a fresh copy per call. */
const copies = new Map<string, JsonSchema>();
const MAX_COPIES = 64;

/**
 * validateArguments for a call sent to a worker (argument-check.ts): the schema and the arguments
 * arrive as copies, so the arguments come back too, with their defaults filled in. A schema seen
 * before is not compiled again.
 */
export function validateCopy(input: { toolId: string; schema: JsonSchema; args: unknown }): {
  args: unknown;
  invalid: string | undefined;
} {
  const key = JSON.stringify(input.schema);
  let schema = copies.get(key);
  if (schema === undefined) {
    if (copies.size >= MAX_COPIES) copies.delete(copies.keys().next().value as string);
    schema = input.schema;
    copies.set(key, schema);
  }
  const invalid = validateArguments(input.toolId, schema, input.args);
  return { args: input.args, invalid };
}
