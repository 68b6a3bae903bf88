import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "./contract.ts";
import { jsonSchemaLibrary } from "./json-schema-library.ts";
import { referenceProblem, schemaProblem } from "./schema-check.ts";
import { keptCopy } from "./schema-copies.ts";
import { counted } from "./counted.ts";

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

// A schema may hold a 10,000-value enum or thousands of properties, and one wrong call may break
// a rule thousands of times; the message the model reads (an error, which is not cut like an
// output) lists a few of each and counts the rest.
/** Characters of an enum's values quoted (as many as fit), and of each value or property name. */
const LISTED_VALUES_CHARS = 300;
const QUOTED_CHARS = 48;
/** Distinct problems listed, and characters of each. */
const LISTED_PROBLEMS = 5;
const PROBLEM_CHARS = 500;
/** Names listed after "Expected properties:". */
const LISTED_PROPERTIES = 20;

const count = (n: number): string => n.toLocaleString("en-US");

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** A value as a message quotes it: JSON, a long one cut (a string keeps its closing quote). */
function quotedValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(cut(value, QUOTED_CHARS));
  return cut(JSON.stringify(value) ?? String(value), QUOTED_CHARS);
}

function where(err: ErrorObject, root: string): string {
  const pointer = err.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return pointer.length === 0 ? root : `"${pointer.join(".")}"`;
}

/** The noun each size keyword counts, and whether it is the least or the most allowed. */
const SIZE_KEYWORDS: Record<string, { noun: string; least: boolean }> = {
  minLength: { noun: "character", least: true },
  maxLength: { noun: "character", least: false },
  minItems: { noun: "item", least: true },
  maxItems: { noun: "item", least: false },
  minProperties: { noun: "property", least: true },
  maxProperties: { noun: "property", least: false },
};

/** One schema error as a person reads it: `"a.b" must be number`, `missing required property "x"`. */
export function describeSchemaError(err: ErrorObject, root = "the arguments"): string {
  const p = err.params as Record<string, unknown>;
  const size = SIZE_KEYWORDS[err.keyword];
  if (size !== undefined && typeof p.limit === "number") {
    // ajv says "must NOT have fewer than 1 characters"; a person reads "must not be empty".
    if (size.least && p.limit === 1) return `${where(err, root)} must not be empty`;
    return `${where(err, root)} must have at ${size.least ? "least" : "most"} ${counted(p.limit, size.noun)}`;
  }
  switch (err.keyword) {
    case "required":
      return `missing required property "${String(p.missingProperty)}"${err.instancePath === "" ? "" : ` in ${where(err, root)}`}`;
    case "additionalProperties":
      return `unknown property "${String(p.additionalProperty)}" in ${where(err, root)}`;
    case "type":
      return `${where(err, root)} must be ${String(p.type)}`;
    case "enum": {
      const values = p.allowedValues as unknown[];
      const listed: string[] = [];
      let chars = 0;
      for (const value of values) {
        const quoted = quotedValue(value);
        if (listed.length > 0 && chars + quoted.length > LISTED_VALUES_CHARS) break;
        listed.push(quoted);
        chars += quoted.length + 2;
      }
      const more = listed.length < values.length ? `, … (${count(values.length)} values in all)` : "";
      return `${cut(where(err, root), QUOTED_CHARS * 2)} must be one of ${listed.join(", ")}${more}`;
    }
    default:
      return `${where(err, root)} ${err.message ?? "is invalid"}`;
  }
}

/** Problems as one clause: the first few, each cut, and how many more there are. */
export function listProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, LISTED_PROBLEMS).map((problem) => cut(problem, PROBLEM_CHARS));
  const left = problems.length - listed.length;
  return `${listed.join("; ")}${left > 0 ? `; and ${count(left)} more problem${left === 1 ? "" : "s"}` : ""}`;
}

function expectedProperties(schema: JsonSchema): string {
  const props = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  if (props.length === 0) return "";
  const listed = props.slice(0, LISTED_PROPERTIES).map((name) => cut(name, QUOTED_CHARS));
  const left = props.length - listed.length;
  return ` Expected properties: ${listed.join(", ")}${left > 0 ? `, and ${count(left)} more` : ""}.`;
}

/**
 * Validate model arguments against a tool's JSON Schema. Returns undefined when they are valid
 * (defaults filled in place), or a message that says what is wrong and how to fix the call.
 */
export function validateArguments(toolId: string, schema: JsonSchema, args: unknown): string | undefined {
  const fn = compile(schema);
  if (fn(args)) return undefined;
  const problems = [...new Set((fn.errors ?? []).map((err) => describeSchemaError(err)))];
  return `Invalid arguments for ${toolId}: ${listProblems(problems)}.${expectedProperties(schema)} Fix the arguments and call ${toolId} again.`;
}

/**
 * validateArguments for a call sent to a worker (argument-check.ts): the schema and the arguments
 * arrive as copies, so the arguments come back too, with their defaults filled in. A schema seen
 * before is not compiled again.
 */
export function validateCopy(input: { toolId: string; schema: JsonSchema; args: unknown }): {
  args: unknown;
  invalid: string | undefined;
} {
  const invalid = validateArguments(input.toolId, keptCopy(input.schema), input.args);
  return { args: input.args, invalid };
}
