import type { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema } from "./contract.ts";
import { JSON_SCHEMA_CHECK } from "./json-schema-check.ts";
import { jsonSchemaLibrary } from "./json-schema-library.ts";

/** The meta-schema tool schemas are checked against (ajv 2020's default; `$schema` is ignored). */
export const META_SCHEMA = "https://json-schema.org/draft/2020-12/schema";

/** How a schema is checked against the meta-schema: every problem, and the schema left as it is. */
export const SCHEMA_CHECKING = { allErrors: true, strict: false, coerceTypes: false } as const;

let instance: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  if (instance) return instance;
  const { Ajv2020: Validator, addFormats } = jsonSchemaLibrary();
  instance = new Validator(SCHEMA_CHECKING);
  // The meta-schema's own formats ("uri" for `$schema`, "uri-reference" for `$id`) are checked.
  addFormats(instance);
  return instance;
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is nobody's regex. */
const DATA_KEYWORDS = new Set(["const", "default", "enum", "examples"]);

/**
 * Every regular expression a schema runs on the data it checks: each `pattern`, and each name
 * under `patternProperties`, with where it is (`schema/properties/q/pattern`). Data such as a
 * `default` aside; a property merely named "pattern" is no regex (its value is a schema).
 */
export function* schemaPatterns(node: unknown, where: string): Generator<{ source: string; at: string }> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemaPatterns(item, `${where}/${i}`);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const at = `${where}/${key}`;
    if (key === "pattern" && typeof value === "string") {
      yield { source: value, at };
      continue;
    }
    if (key === "patternProperties" && typeof value === "object" && value !== null) {
      for (const name of Object.keys(value)) yield { source: name, at: `${at}/${name}` };
    }
    yield* schemaPatterns(value, at);
  }
}

const regexesBySchema = new WeakMap<JsonSchema, readonly string[]>();

/** The distinct regular expressions (schemaPatterns) a schema runs on what it checks, memoised per schema. */
export function schemaRegexes(schema: JsonSchema): readonly string[] {
  let found = regexesBySchema.get(schema);
  if (found === undefined) {
    found = [...new Set(Array.from(schemaPatterns(schema, "schema"), (p) => p.source))];
    regexesBySchema.set(schema, found);
  }
  return found;
}

/**
 * The first `pattern` (or `patternProperties` name) in a schema that is no regular expression
 * the validator can compile (as ajv does: with the `u` flag), as a problem worded like the
 * meta-schema's ("schema/properties/q/pattern is not a valid regular expression: …"). The
 * meta-schema only asks for a string there, so without this a broken pattern passed the check
 * and failed every call of its tool instead.
 */
function patternProblem(node: unknown, where: string): string | undefined {
  for (const { source, at } of schemaPatterns(node, where)) {
    try {
      new RegExp(source, "u");
    } catch (err) {
      return `${at} is not a valid regular expression: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/**
 * The most schemas (objects a validator compiles: the root, each property's, each `items`, …) a
 * tool's schema may hold. The validator compiles them all on the tool's first call, on the
 * thread that runs every session: ~0.1 ms each on a quiet machine, so a 20,000-property schema
 * froze the app (or a `lathe call`) for 2–5 s. 5,000 is far past any real tool's and compiles
 * in well under a second.
 */
export const MAX_SCHEMA_NODES = 5_000;

/** Keywords whose keys (or items) are property names of the data. */
const NAMING_KEYWORDS = new Set(["properties", "dependentSchemas", "dependentRequired"]);

/** What is wrong with a schema's shape, and how to fix it (lower case: it is quoted after "Fix:" too). */
export interface ShapeFault {
  problem: string;
  fix: string;
}

/**
 * The first problem of a schema's shape that the meta-schema cannot see, walked without
 * recursion (a schema may be nested deeper than the stack): more than MAX_SCHEMA_NODES objects
 * (counted before anything compiles them), or a property named `__proto__` (under `properties`,
 * `required`, `dependentRequired` or `dependentSchemas`) or a `patternProperties` pattern spelt
 * `__proto__` (which ajv skips too, so the names it matches went unchecked). The validator skips that name (ajv
 * drops it from `properties`, and reads `required` through the prototype, so `{}` has it): a
 * schema requiring it accepted `{}`, and a value given for it was never checked. Refused, rather
 * than half enforced: an own `__proto__` key in arguments is also what turns a tool's
 * `Object.assign` into a prototype change.
 */
export function shapeFault(schema: unknown, where: string): ShapeFault | undefined {
  const stack: { node: unknown; at: string }[] = [{ node: schema, at: where }];
  let schemas = 0;
  while (stack.length > 0) {
    const { node, at } = stack.pop() as { node: unknown; at: string };
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push({ node: item, at: `${at}/${i}` }));
      continue;
    }
    schemas += 1;
    if (schemas > MAX_SCHEMA_NODES) {
      return {
        problem: `${where} holds more than ${MAX_SCHEMA_NODES.toLocaleString("en-US")} schemas (properties, items and the like, counted at every depth), the most Lathe compiles: one that large blocks every session for seconds when it is compiled`,
        fix: 'split the tool, or describe a repeated part once (under "$defs", used with "$ref", or with "additionalProperties")',
      };
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      const named =
        key === "required" && Array.isArray(value)
          ? value
          : NAMING_KEYWORDS.has(key) && typeof value === "object" && value !== null
            ? [...Object.keys(value), ...(key === "dependentRequired" ? Object.values(value).flat() : [])]
            : [];
      if (named.includes("__proto__")) {
        return {
          problem: `${at}/${key} names a property "__proto__", which Lathe cannot check or pass to a tool safely (the JSON Schema validator skips that name, so it would never be enforced)`,
          fix: "give the property another name",
        };
      }
      if (
        key === "patternProperties" &&
        typeof value === "object" &&
        value !== null &&
        Object.hasOwn(value, "__proto__")
      ) {
        return {
          problem: `${at}/${key} has a pattern "__proto__", which Lathe cannot check (the JSON Schema validator skips that name, so the names it matches would never be checked against its schema)`,
          fix: 'write the pattern another way that matches the same names, e.g. "(?:__proto__)"',
        };
      }
      stack.push({ node: value, at: `${at}/${key}` });
    }
  }
  return undefined;
}

/** shapeFault as one sentence: the problem, then how to fix it. */
export function shapeProblem(schema: unknown, where: string): string | undefined {
  const fault = shapeFault(schema, where);
  if (fault === undefined) return undefined;
  return `${fault.problem}. ${fault.fix.charAt(0).toUpperCase()}${fault.fix.slice(1)}`;
}

/** Keywords that point elsewhere: a validator can only be built once each target is found. */
const REFERENCES = new Set(["$ref", "$dynamicRef", "$recursiveRef"]);

/** Where in a schema the first reference to `target` is (data such as a `default` aside). */
function referenceAt(node: unknown, target: string | undefined, where: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = referenceAt(item, target, `${where}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof node !== "object" || node === null) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (REFERENCES.has(key) && typeof value === "string" && (target === undefined || value === target))
      return `${where}/${key}`;
    if (DATA_KEYWORDS.has(key)) continue;
    const found = referenceAt(value, target, `${where}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * For a schema that passed schemaProblem: when it holds a `$ref` (or `$dynamicRef`), whether
 * `compile` (the validator that will check against it) finds what each points to, worded like
 * schemaProblem ("schema/properties/a/$ref points to …"). Only compiling tells, so a schema
 * without one is not compiled here: startup does not pay for tools that are never called.
 */
export function referenceProblem(
  schema: JsonSchema,
  dataVar: string,
  compile: (schema: JsonSchema) => unknown,
): string | undefined {
  if (referenceAt(schema, undefined, dataVar) === undefined) return undefined;
  try {
    compile(schema);
    return undefined;
  } catch (err) {
    const missing = (err as { missingRef?: unknown }).missingRef;
    if (typeof missing !== "string") return `${dataVar} cannot be compiled: ${(err as Error).message}`;
    const at = referenceAt(schema, missing, dataVar);
    return `${at ?? `${dataVar} has a reference that`} points to "${missing}", which is not in the schema (a schema must hold what it refers to, under "$defs")`;
  }
}

/**
 * What is wrong with `schema` as a JSON Schema (checked against the 2020-12 meta-schema, its
 * shape (shapeProblem), and each regular expression it holds compiled), worded
 * with `dataVar` as its name ("schema/properties must be object"), or undefined when nothing is.
 * From the CLI bundle the meta-schema's validator is compiled ahead of time (json-schema-check.ts);
 * from the sources it is compiled on first use, which costs a few hundred milliseconds.
 */
export function schemaProblem(schema: JsonSchema, dataVar: string): string | undefined {
  const { $schema: _ignored, ...rest } = schema;
  // First: a schema too large to compile is not walked again by the meta-schema.
  const shape = shapeProblem(rest, dataVar);
  if (shape !== undefined) return shape;
  const check = JSON_SCHEMA_CHECK;
  if (check) {
    if (!check(rest)) return ajv().errorsText(check.errors, { dataVar });
  } else {
    const validator = ajv();
    if (validator.validateSchema(rest) !== true) return validator.errorsText(validator.errors, { dataVar });
  }
  return patternProblem(rest, dataVar);
}
