// The renderer's copy of src/main/engine/tools/counted.ts (the engine imports nothing above it):
// src/shared/counted.test.ts keeps the two equal.

/**
 * A noun's plural as Lathe's messages use them: "byte" → "bytes", "match" → "matches",
 * "entry" → "entries". Irregular ones are passed to `counted` as its `plural`.
 */
function pluralOf(noun: string): string {
  if (/(?:s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/**
 * A count and its noun as a person reads them: "1 byte", "2 bytes", "0 files", "1 match".
 * `shown` is how the number is written ("1,200"); the noun follows the number itself.
 */
export function counted(n: number, noun: string, options: { plural?: string; shown?: string } = {}): string {
  return `${options.shown ?? String(n)} ${n === 1 ? noun : (options.plural ?? pluralOf(noun))}`;
}
