import type { JsonSchema } from "./contract.ts";

/** Schemas a worker has checked against, by their JSON: each arrives as a fresh copy per job. */
const copies = new Map<string, JsonSchema>();
const MAX_COPIES = 64;

/**
 * In a worker thread, the one copy kept of a schema equal to `schema` (the first seen), so a
 * validator compiled for it (validators are cached per schema object) serves the next job too.
 */
export function keptCopy(schema: JsonSchema): JsonSchema {
  const key = JSON.stringify(schema);
  const kept = copies.get(key);
  if (kept !== undefined) return kept;
  if (copies.size >= MAX_COPIES) copies.delete(copies.keys().next().value as string);
  copies.set(key, schema);
  return schema;
}
