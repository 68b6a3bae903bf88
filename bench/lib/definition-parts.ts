/**
 * Where the characters of one tool definition go, as a provider receives it
 * (`{"name","description","parameters"}`, the parameters as the model is shown them): the
 * description, and in the schema the property descriptions, enums, defaults, and the rest
 * (structure: names, types, bounds, required). Characters, so parts add up exactly; the bench
 * turns them into tokens at the estimator's rate.
 */
export interface DefinitionParts {
  name: number;
  description: number;
  propertyDescriptions: number;
  enums: number;
  defaults: number;
  structure: number;
}

export const PART_NAMES = [
  "name",
  "description",
  "propertyDescriptions",
  "enums",
  "defaults",
  "structure",
] as const;

export function emptyParts(): DefinitionParts {
  return { name: 0, description: 0, propertyDescriptions: 0, enums: 0, defaults: 0, structure: 0 };
}

export function addParts(into: DefinitionParts, more: DefinitionParts): DefinitionParts {
  for (const key of PART_NAMES) into[key] += more[key];
  return into;
}

export function totalChars(parts: DefinitionParts): number {
  return PART_NAMES.reduce((sum, key) => sum + parts[key], 0);
}

const MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** Characters of `"key":value,` for one keyword of a schema node. */
const pairChars = (key: string, value: unknown): number =>
  JSON.stringify(key).length + 1 + JSON.stringify(value).length + 1;

function walk(node: unknown, parts: DefinitionParts, isSchema: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, parts, true);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (isSchema && key === "description" && typeof value === "string")
      parts.propertyDescriptions += pairChars(key, value);
    else if (isSchema && key === "enum") parts.enums += pairChars(key, value);
    else if (isSchema && key === "default") parts.defaults += pairChars(key, value);
    // A map's values are schemas; a schema's object-valued keywords hold schemas or maps.
    else walk(value, parts, isSchema ? !MAPS.has(key) : true);
  }
}

/** The parts of one definition; they add up to the length of the JSON sent. */
export function definitionParts(
  id: string,
  description: string,
  parameters: Record<string, unknown>,
): DefinitionParts {
  const sent = JSON.stringify({ name: id, description, parameters });
  const parts = emptyParts();
  parts.name = JSON.stringify(id).length;
  parts.description = JSON.stringify(description).length;
  walk(parameters, parts, true);
  parts.structure =
    sent.length - parts.name - parts.description - parts.propertyDescriptions - parts.enums - parts.defaults;
  return parts;
}
