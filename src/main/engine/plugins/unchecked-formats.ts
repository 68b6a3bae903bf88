import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SLOTS } from "../tools/json-schema-keywords.ts";

/** A `format` in a schema that the validator does not know, so values there are not checked. */
interface UncheckedFormat {
  format: string;
  /** Where, as dotted keys from the schema's root, e.g. `properties.id.format`. */
  path: string;
}

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const join = (path: string, key: string | number): string => (path === "" ? String(key) : `${path}.${key}`);

function walk(node: unknown, path: string, known: ReadonlySet<string>, out: UncheckedFormat[]): void {
  if (!isNode(node)) return;
  if (typeof node.format === "string" && !known.has(node.format))
    out.push({ format: node.format, path: join(path, "format") });
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (isNode(map))
      for (const [name, child] of Object.entries(map)) walk(child, join(join(path, key), name), known, out);
  }
  for (const key of SUBSCHEMA_SLOTS) walk(node[key], join(path, key), known, out);
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => walk(child, join(join(path, key), i), known, out));
  }
}

/**
 * The formats a schema names that are not among `known` (the validator's): legal JSON Schema,
 * which the validator lets through unchecked. Data (`enum`, `default`) and a property that is
 * merely named "format" are not mistaken for the keyword.
 */
export function uncheckedFormats(schema: unknown, known: ReadonlySet<string>): UncheckedFormat[] {
  const out: UncheckedFormat[] = [];
  walk(schema, "", known, out);
  return out;
}
