import type { JsonSchema } from "./contract.ts";
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SLOTS } from "./json-schema-keywords.ts";

/**
 * A tool's parameters schema as the model is shown it: the published schema minus keywords that
 * tell a model nothing it would act on, so every request spends fewer tokens on them.
 *
 * - `$schema`: which draft the schema follows.
 * - `additionalProperties: false` on an object that lists its properties: the list already says
 *   what to send. (An object that lists none keeps it: there it is the only thing saying "no
 *   arguments", and the embedded model's grammar reads it that way.)
 * - `minimum`/`maximum` at the safe-integer limits, which zod puts on every integer.
 *
 * Only the model's copy changes: calls are still validated against the full schema
 * (`ToolDefinition.parameters`), so an extra property or an out-of-range integer is refused as
 * before. No provider needs the dropped keywords: the AI SDK sends the schema as given, and none
 * of Lathe's providers asks for strict function calling (OpenAI's strict mode is the one that
 * would require `additionalProperties: false`).
 */
export function modelSchema(parameters: JsonSchema): JsonSchema {
  let shown = cache.get(parameters);
  if (shown === undefined) {
    shown = compact(parameters, true) as JsonSchema;
    cache.set(parameters, shown);
  }
  return shown;
}

const cache = new WeakMap<JsonSchema, JsonSchema>();

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compact(schema: unknown, root = false): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (root && key === "$schema") continue;
    if (key === "additionalProperties" && value === false && listsProperties(schema)) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (SUBSCHEMA_SLOTS.includes(key) && isObject(value)) out[key] = compact(value);
    else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value))
      out[key] = value.map((item) => compact(item));
    else if (SUBSCHEMA_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, compact(item)]));
    } else out[key] = value;
  }
  return out;
}

function listsProperties(schema: Record<string, unknown>): boolean {
  const properties = schema["properties"];
  return isObject(properties) && Object.keys(properties).length > 0;
}
