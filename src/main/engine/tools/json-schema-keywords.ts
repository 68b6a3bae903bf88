// Where a JSON Schema keeps its subschemas (drafts 7 to 2020-12), for code that walks a schema:
// typo checks, tightening a plugin's schema, shortening what the model is shown.

/** Keywords whose value maps names to subschemas. */
export const SUBSCHEMA_MAPS: readonly string[] = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
];

/** Keywords whose value is one subschema. */
export const SUBSCHEMA_SLOTS: readonly string[] = [
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "additionalProperties",
  "unevaluatedProperties",
  "contentSchema",
];

/** Keywords whose value is a list of subschemas (`items` too, before draft 2020-12). */
export const SUBSCHEMA_LISTS: readonly string[] = ["prefixItems", "items", "allOf", "anyOf", "oneOf"];
