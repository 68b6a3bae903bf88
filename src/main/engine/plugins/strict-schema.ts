import type { JsonSchema } from "../tools/contract.ts";
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SLOTS } from "../tools/json-schema-keywords.ts";

type Node = Record<string, unknown>;

// allOf branches are left alone: closing each branch would reject the other branches' properties.
const LISTS = SUBSCHEMA_LISTS.filter((key) => key !== "allOf");

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describesObject(node: Node): boolean {
  const type = node.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || isNode(node.properties);
}

function tighten(node: unknown): void {
  if (!isNode(node)) return;
  const open =
    "additionalProperties" in node || "unevaluatedProperties" in node || "patternProperties" in node;
  if (describesObject(node) && !open) node.additionalProperties = false;
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (isNode(map)) for (const child of Object.values(map)) tighten(child);
  }
  for (const key of SUBSCHEMA_SLOTS) tighten(node[key]);
  for (const key of LISTS) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) tighten(child);
  }
}

/**
 * A plugin's input schema made strict: every object schema that says nothing about extra
 * properties (no `additionalProperties`, `unevaluatedProperties` or `patternProperties`) rejects
 * unknown ones, so a misspelt argument is an error the model sees rather than silently ignored.
 */
export function strictSchema(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema);
  tighten(copy);
  return copy;
}
