import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SLOTS } from "../tools/json-schema-keywords.ts";
import { didYouMean } from "./did-you-mean.ts";

/** A slip in a plugin's JSON Schema that a validator would not catch, or would blame vaguely. */
interface SchemaTypo {
  /** Where, as dotted keys from the schema's root, e.g. `properties.path.type`. */
  path: string;
  problem: string;
  fix: string;
}

type Node = Record<string, unknown>;

const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

/** Every keyword of JSON Schema 2020-12 (and draft-07's that ajv still reads). */
const KEYWORDS = [
  "$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
  "$comment", "definitions", "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum",
  "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
  "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
  "dependentRequired", "properties", "patternProperties", "additionalProperties", "propertyNames",
  "unevaluatedProperties", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems",
  "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
  "format", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
  "contentEncoding", "contentMediaType", "contentSchema",
]; // prettier-ignore
const KNOWN = new Set(KEYWORDS);
/** Annotations from neighbouring dialects (OpenAPI) that are close to a keyword but meant. */
const TOLERATED = new Set(["example", "nullable"]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(path: string, key: string | number): string {
  return path === "" ? String(key) : `${path}.${key}`;
}

function checkType(node: Node, path: string, out: SchemaTypo[]): void {
  const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : [];
  for (const type of types) {
    if (typeof type !== "string" || TYPES.includes(type)) continue;
    const meant = didYouMean(type, TYPES);
    out.push({
      path: join(path, "type"),
      problem: `is "${type}", which is not a JSON Schema type${meant ? ` (did you mean "${meant}"?)` : ""}`,
      fix: `use one of ${TYPES.join(", ")}`,
    });
  }
}

function checkKeywords(node: Node, path: string, out: SchemaTypo[]): void {
  for (const key of Object.keys(node)) {
    if (KNOWN.has(key) || TOLERATED.has(key) || key.startsWith("x-")) continue;
    const meant = didYouMean(key, KEYWORDS);
    if (meant === undefined) continue; // an annotation of the author's own: validators ignore it
    out.push({
      path: join(path, key),
      problem: `is not a JSON Schema keyword (did you mean "${meant}"?), so validators would silently ignore it`,
      fix: `rename it to "${meant}"`,
    });
  }
}

/** In a schema that refuses unknown properties, a `required` name it does not define fails every call. */
function checkRequired(node: Node, path: string, strict: boolean, out: SchemaTypo[]): void {
  if (!Array.isArray(node.required) || !isNode(node.properties)) return;
  const extra = node.additionalProperties;
  const closed = extra === false || (strict && extra === undefined);
  const composed = ["allOf", "anyOf", "oneOf", "$ref", "patternProperties", "unevaluatedProperties"].some(
    (k) => k in node,
  );
  if (!closed || composed) return;
  const names = Object.keys(node.properties);
  for (const [index, name] of node.required.entries()) {
    if (typeof name !== "string" || names.includes(name)) continue;
    const meant = didYouMean(name, names);
    out.push({
      path: join(join(path, "required"), index),
      problem: `is "${name}", which is not one of the properties (${names.join(", ") || "none"}), so no call could ever pass${meant ? ` (did you mean "${meant}"?)` : ""}`,
      fix: meant ? `write "${meant}"` : `add "${name}" under properties, or remove it from required`,
    });
  }
}

function walk(node: unknown, path: string, strict: boolean, out: SchemaTypo[]): void {
  if (!isNode(node)) return;
  checkKeywords(node, path, out);
  checkType(node, path, out);
  checkRequired(node, path, strict, out);
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (isNode(map))
      for (const [name, child] of Object.entries(map)) walk(child, join(join(path, key), name), strict, out);
  }
  for (const key of SUBSCHEMA_SLOTS) if (isNode(node[key])) walk(node[key], join(path, key), strict, out);
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => walk(child, join(join(path, key), i), strict, out));
  }
}

/**
 * Slips in a JSON Schema that would make a tool silently misbehave rather than fail to load:
 * a `type` that is no JSON type (`strng`), a keyword one slip from a real one (`requried`,
 * `minLenght`: validators ignore unknown keywords), and — when `strict`, as input schemas are —
 * a `required` name that is not among the properties, which no call could satisfy.
 */
export function schemaTypos(schema: unknown, options: { strict: boolean }): SchemaTypo[] {
  const out: SchemaTypo[] = [];
  walk(schema, "", options.strict, out);
  return out;
}
