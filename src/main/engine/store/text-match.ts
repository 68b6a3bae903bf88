import type { Db } from "./database.ts";

/**
 * How the store matches a person's search text ("contains it, any case") against recorded text,
 * with or without the trigram index of migration 12 (message_text_index).
 */

/** Fewest characters the trigram index can find: a shorter text is looked for with LIKE. */
const TRIGRAM = 3;

/** `text` as a LIKE pattern matching it anywhere, with LIKE's own wildcards taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `text` as an FTS5 query for the trigram index: one phrase, so quotes, `-`, `*`, `:`, `(`,
 * `AND` and the like are characters to find, never query syntax. Undefined when the text is too
 * short for trigrams (under three characters, counted as code points, as the tokenizer does) or
 * holds a NUL character.
 */
export function trigramPhrase(text: string): string | undefined {
  // FTS5's query parser ends a string at a NUL character ("unterminated string"): LIKE finds it.
  if ([...text].length < TRIGRAM || text.includes("\u0000")) return undefined;
  return `"${text.replaceAll('"', '""')}"`;
}

/** How a column is matched against a search text, in SQL, and the pattern to bind for it. */
export interface ContainsMatch {
  /** The LIKE pattern: bind it as the parameter `@pattern` of `sql`. */
  pattern: string;
  /** The condition that `column` contains the text, with the parameter `@pattern`. */
  sql(column: string): string;
}

/**
 * "Contains `text`, any case" as a LIKE. LIKE folds ASCII letters alone: a text with other
 * letters compares both sides folded by `lathe_fold` (registerFold), as the trigram index does, so
 * "ПРИВЕТ" finds "привет"; an ASCII text keeps SQLite's own LIKE, which costs no call per row.
 */
export function containsMatch(text: string): ContainsMatch {
  // eslint-disable-next-line no-control-regex -- ASCII is the range from NUL up
  const ascii = /^[\u0000-\u007f]*$/.test(text);
  return {
    pattern: containsPattern(ascii ? text : text.toLowerCase()),
    sql: (column) => `${ascii ? column : `lathe_fold(${column})`} LIKE @pattern ESCAPE '\\'`,
  };
}

/**
 * SQL function `lathe_fold(text)`: lower case in every script, for containsMatch. Registered on
 * each connection that searches (a deterministic function of the connection, not of the file).
 */
export function registerFold(db: Db): void {
  db.function("lathe_fold", { deterministic: true }, (text: unknown) =>
    typeof text === "string" ? text.toLowerCase() : text,
  );
}
