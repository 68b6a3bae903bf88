import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Database from "better-sqlite3";
import { MIGRATIONS } from "./migrations.ts";

export type Db = Database.Database;

let sqlite: typeof Database | undefined;

/**
 * SQLite (a native addon), loaded when the first database is opened: a command that lists tools
 * never opens one. Required rather than imported so that opening stays synchronous.
 */
function sqliteDriver(): typeof Database {
  sqlite ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return sqlite;
}

/**
 * Open (creating if needed) Lathe's SQLite database in WAL mode and bring its schema up to the
 * newest migration. Each migration runs in its own transaction and bumps `user_version`. Several
 * processes may open the same file at once (two `lathe run`s on a fresh LATHE_HOME): they wait
 * on each other's locks rather than fail, and a migration runs exactly once.
 */
export function openDatabase(file: string): Db {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const Driver = sqliteDriver();
  const db = new Driver(file);
  // First, so that every statement after it (the journal mode switch too) waits out a lock.
  db.pragma("busy_timeout = 5000");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  migrate(db);
  return db;
}

function schemaVersion(db: Db): number {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The database ${db.name} was written by a newer Lathe (schema ${current}, this one knows ${MIGRATIONS.length}). Update Lathe.`,
    );
  }
  return current;
}

function migrate(db: Db): void {
  if (schemaVersion(db) === MIGRATIONS.length) return;
  // Take the write lock before reading the version: another process may have migrated meanwhile.
  const step = db.transaction((): boolean => {
    const version = schemaVersion(db);
    if (version === MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[version] as string);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration per transaction, until none is left
  }
}
