import type Database from "better-sqlite3";
import { counted } from "../tools/counted.ts";

/**
 * Rows of a table a migration indexes past which that migration is said before it runs: SQLite
 * builds an index at some 130,000 rows a second on these machines (500,000 audit rows, 3.7 s),
 * so from here on it takes long enough for a person to wonder why nothing happens.
 */
export const LONG_MIGRATION_ROWS = 50_000;

/** The tables the `CREATE INDEX … ON table` statements of a migration index. */
function indexedTables(sql: string): string[] {
  const found = sql.matchAll(/\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?\w+\s+ON\s+(\w+)/gi);
  return [...new Set(Array.from(found, (m) => m[1] as string))];
}

function rowsOf(db: Database.Database, table: string): number {
  const known = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (known === undefined) return 0;
  // The largest rowid bounds the count and is read at once; the count itself only when it may pass.
  const { last } = db.prepare(`SELECT max(rowid) AS last FROM "${table}"`).get() as { last: number | null };
  if ((last ?? 0) < LONG_MIGRATION_ROWS) return 0;
  return (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
}

/**
 * What the pending migrations `sqls` will take long doing, as a person reads it ("indexing the
 * 500,000 rows of its audit table"), or undefined when they will be quick: none indexes a table
 * of LONG_MIGRATION_ROWS rows or more.
 */
export function longMigrationWork(db: Database.Database, sqls: readonly string[]): string | undefined {
  const tables = [...new Set(sqls.flatMap(indexedTables))];
  const big = tables
    .map((table) => ({ table, rows: rowsOf(db, table) }))
    .filter(({ rows }) => rows >= LONG_MIGRATION_ROWS);
  if (big.length === 0) return undefined;
  const each = big.map(
    ({ table, rows }) =>
      `the ${counted(rows, "row", { shown: rows.toLocaleString("en-US") })} of its ${table} table`,
  );
  return `indexing ${each.join(" and ")}`;
}
