import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { LONG_MIGRATION_ROWS } from "./long-migration.ts";
import { MIGRATIONS } from "./migrations.ts";

// Opening a store an older Lathe wrote brings its schema up to date, once. Indexing a large
// audit trail (500,000 calls) takes seconds, with nothing said: the command seemed to hang.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-migration-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** The migration that indexes the audit trail by session and tool. */
const AUDIT_INDEXES = MIGRATIONS.findIndex((sql) => sql.includes("audit_by_root_session"));

/** A store as the Lathe before that migration left it, with `calls` rows in its audit trail. */
function olderStore(calls: number): string {
  const file = path.join(dir, "lathe.db");
  const db = new Database(file);
  for (const sql of MIGRATIONS.slice(0, AUDIT_INDEXES)) db.exec(sql);
  db.pragma(`user_version = ${AUDIT_INDEXES}`);
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit (call_id, session_id, tool_id, args_json, decisions_json, outcome, envelope_head,
                        duration_ms, started_at, root)
     SELECT 'c' || i, 's' || (i % 50), 'read', '{}', '[]', 'ok', '{}', 1, i, '/w' FROM n`,
  ).run(calls);
  db.close();
  return file;
}

function opened(file: string): string[] {
  const notices: string[] = [];
  const db = openDatabase(file, { onLongMigration: (notice) => notices.push(notice) });
  expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  db.close();
  return notices;
}

describe("a migration that takes seconds", () => {
  it("is said before it starts, with what it does, once", () => {
    expect(AUDIT_INDEXES).toBeGreaterThan(0);
    const file = olderStore(LONG_MIGRATION_ROWS + 10_000);
    expect(opened(file)).toEqual([
      `updating the database ${file} for this version of Lathe (once): indexing the 60,000 rows of its audit table…`,
    ]);
    // Done: the next open has nothing to do, and says nothing.
    expect(opened(file)).toEqual([]);
  });

  it("is not said when the tables it indexes are small", () => {
    expect(opened(olderStore(1_000))).toEqual([]);
  });

  it("is not said for a new store", () => {
    expect(opened(path.join(dir, "new.db"))).toEqual([]);
  });
});
