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
 * The first `pattern` (or `patternProperties` name) in a schema that is no regular expression
 * the validator can compile (as ajv does: with the `u` flag), as a problem worded like the
 * meta-schema's ("schema/properties/q/pattern is not a valid regular expression: …"). The
 * meta-schema only asks for a string there, so without this a broken pattern passed the check
 * and failed every call of its tool instead.
 */
function patternProblem(node: unknown, where: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = patternProblem(item, `${where}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof node !== "object" || node === null) return undefined;
  const compiles = (source: string, at: string): string | undefined => {
    try {
      new RegExp(source, "u");
      return undefined;
    } catch (err) {
      return `${at} is not a valid regular expression: ${(err as Error).message}`;
    }
  };
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const at = `${where}/${key}`;
    if (key === "pattern" && typeof value === "string") {
      const found = compiles(value, at);
      if (found !== undefined) return found;
      continue;
    }
    if (key === "patternProperties" && typeof value === "object" && value !== null) {
      for (const name of Object.keys(value)) {
        const found = compiles(name, `${at}/${name}`);
        if (found !== undefined) return found;
      }
    }
    const found = patternProblem(value, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * What is wrong with `schema` as a JSON Schema (checked against the 2020-12 meta-schema, and
 * each regular expression it holds compiled), worded
 * with `dataVar` as its name ("schema/properties must be object"), or undefined when nothing is.
 * From the CLI bundle the meta-schema's validator is compiled ahead of time (json-schema-check.ts);
 * from the sources it is compiled on first use, which costs a few hundred milliseconds.
 */
export function schemaProblem(schema: JsonSchema, dataVar: string): string | undefined {
  const { $schema: _ignored, ...rest } = schema;
  const check = JSON_SCHEMA_CHECK;
  if (check) {
    if (!check(rest)) return ajv().errorsText(check.errors, { dataVar });
  } else {
    const validator = ajv();
    if (validator.validateSchema(rest) !== true) return validator.errorsText(validator.errors, { dataVar });
  }
  return patternProblem(rest, dataVar);
}
