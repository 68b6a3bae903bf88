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

/**
 * What is wrong with `schema` as a JSON Schema (checked against the 2020-12 meta-schema), worded
 * with `dataVar` as its name ("schema/properties must be object"), or undefined when nothing is.
 * From the CLI bundle the meta-schema's validator is compiled ahead of time (json-schema-check.ts);
 * from the sources it is compiled on first use, which costs a few hundred milliseconds.
 */
export function schemaProblem(schema: JsonSchema, dataVar: string): string | undefined {
  const { $schema: _ignored, ...rest } = schema;
  const check = JSON_SCHEMA_CHECK;
  if (check) return check(rest) ? undefined : ajv().errorsText(check.errors, { dataVar });
  const validator = ajv();
  return validator.validateSchema(rest) === true
    ? undefined
    : validator.errorsText(validator.errors, { dataVar });
}
