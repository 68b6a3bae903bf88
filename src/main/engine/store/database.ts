import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Database from "better-sqlite3";
import { StoreError } from "../errors/store-error.ts";
import { longMigrationWork } from "./long-migration.ts";
import { MIGRATIONS } from "./migrations.ts";
import { sleepSync } from "./sleep-sync.ts";
import { storeFailure } from "./store-failure.ts";

export type Db = Database.Database;

/** How long a statement waits for another process's lock before it fails as "database is locked". */
const BUSY_TIMEOUT_MS = 5000;

let sqlite: typeof Database | undefined;

/**
 * SQLite (a native addon), loaded when the first database is opened: a command that lists tools
 * never opens one. Required rather than imported so that opening stays synchronous.
 */
function sqliteDriver(): typeof Database {
  sqlite ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return sqlite;
}

export interface OpenOptions {
  /**
   * Told, just before it starts, when bringing the schema up to date will take a while (indexing
   * a large table, once after an upgrade), with what it does: "updating the database … (once):
   * indexing the 500,000 rows of its audit table…". Hosts say it. No duration: it depends on the
   * disk and the rows (under a second at the threshold, seconds for half a million).
   */
  onLongMigration?: (notice: string) => void;
}

/**
 * Open (creating if needed) Lathe's SQLite database in WAL mode and bring its schema up to the
 * newest migration. Each migration runs in its own transaction and bumps `user_version`. Several
 * processes may open the same file at once (two `lathe run`s on a fresh LATHE_HOME): they wait
 * on each other's locks rather than fail, and a migration runs exactly once.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  let db: Db | undefined;
  try {
    if (file !== ":memory:") {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      refuseOrphanedWal(file);
      readableByOwnerOnly(file);
    }
    const Driver = sqliteDriver();
    db = new Driver(file);
    // First, so that every statement after it waits out another process's lock.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    switchToWal(db);
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db, file, options.onLongMigration);
  } catch (err) {
    try {
      db?.close();
    } catch {
      // The failure below is what the person needs; a file that will not even close adds nothing.
    }
    throw storeFailure(err, file, "open its database");
  }
  explainFailures(db, file);
  return db;
}

/** What a statement does, by method: said in a failure's message. */
const STATEMENT_DOING = { run: "save its data", get: "read its data", all: "read its data" } as const;

/**
 * Every statement of `db` (and exec, pragma) then fails with a StoreError that names the file and
 * what to do when the failure is the file's or the disk's (full, read-only, damaged): a person
 * reads "the disk is full … free some space", not SQLite's bare "database or disk is full".
 */
function explainFailures(db: Db, file: string): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const [method, doing] of Object.entries(STATEMENT_DOING) as [
      keyof typeof STATEMENT_DOING,
      string,
    ][]) {
      const original = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: function (this: unknown, ...args: unknown[]) {
          try {
            return original.apply(this, args);
          } catch (err) {
            throw storeFailure(err, file, doing);
          }
        },
      });
    }
    return statement;
  }) as Db["prepare"];
  for (const method of ["exec", "pragma"] as const) {
    const original = db[method] as (...args: unknown[]) => unknown;
    Object.defineProperty(db, method, {
      value: function (this: unknown, ...args: unknown[]) {
        try {
          return original.apply(this, args);
        } catch (err) {
          throw storeFailure(err, file, "use its database");
        }
      },
    });
  }
}

/** A WAL file's header alone: a WAL this size or smaller holds no change. */
const WAL_HEADER_BYTES = 32;

/**
 * Refuse a database file that is missing (or empty) while its WAL beside it holds changes: the
 * file was moved or deleted without it, and the WAL keeps its latest commits. SQLite would
 * delete that WAL without a word and Lathe would start an empty database over it; a person who
 * moved a damaged lathe.db aside alone would lose the very changes they meant to recover.
 */
function refuseOrphanedWal(file: string): void {
  const wal = statSync(`${file}-wal`, { throwIfNoEntry: false });
  if (wal === undefined || wal.size <= WAL_HEADER_BYTES) return;
  const db = statSync(file, { throwIfNoEntry: false });
  if (db !== undefined && db.size > 0) return;
  throw new StoreError(
    `Lathe could not open its database in ${file}: the file is ${db === undefined ? "missing" : "empty"}, but ${file}-wal beside it holds its latest changes (${wal.size} bytes), which would be lost. If you moved ${file} away, put it back beside ${file}-wal; to start a new database instead, move ${file}-wal and ${file}-shm aside too (keep them with the old file for recovery), then try again.`,
  );
}

/**
 * The database holds every session's conversation and tool output, of every folder: readable
 * by its owner alone (0600), as the logs, trust and checkpoint files are. A new file is created
 * so before SQLite opens it (SQLite gives its -wal and -shm files the database file's mode); one
 * an older Lathe left readable by others is narrowed, with its -wal and -shm.
 */
function readableByOwnerOnly(file: string): void {
  if (process.platform === "win32") return;
  closeSync(openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    const stats = statSync(f, { throwIfNoEntry: false });
    if (stats !== undefined && (stats.mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/**
 * Put the file in WAL mode. On a new file the switch writes the header: SQLite reads first, then
 * upgrades to the write lock, and an upgrade fails at once when another process holds that lock
 * (SQLite calls no busy handler there, to avoid a deadlock). Several `lathe` processes starting on
 * a fresh LATHE_HOME do that, so the switch is retried here for as long as busy_timeout would wait.
 */
function switchToWal(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      sleepSync(Math.min(5 * attempt, 50));
    }
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * A transaction that writes: it begins IMMEDIATE, taking the write lock first, where SQLite waits
 * out another process (busy_timeout). A deferred one that reads before it writes would fail at
 * once with "database is locked" when it upgrades while another process writes. Every write
 * transaction in the engine goes through here (a lint rule says so).
 */
export function writeTransaction<Args extends unknown[], Result>(
  db: Db,
  body: (...args: Args) => Result,
): (...args: Args) => Result {
  const transaction = db.transaction(body).immediate;
  return (...args: Args): Result => {
    try {
      return transaction(...args);
    } catch (err) {
      // BEGIN and COMMIT are the driver's own statements: a full disk at COMMIT is explained here.
      throw storeFailure(err, db.name, "save its data");
    }
  };
}

function schemaVersion(db: Db): number {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new StoreError(
      `The database ${db.name} was written by a newer Lathe (schema ${current}, this one knows ${MIGRATIONS.length}). Update Lathe, or set LATHE_HOME to another folder to use this version apart from it.`,
    );
  }
  return current;
}

function migrate(db: Db, file: string, onLongMigration?: (notice: string) => void): void {
  if (schemaVersion(db) === MIGRATIONS.length) return;
  let told = false;
  // Take the write lock before reading the version: another process may have migrated meanwhile.
  const step = writeTransaction(db, (): boolean => {
    const version = schemaVersion(db);
    if (version === MIGRATIONS.length) return false;
    // Said once, before the first migration, of all those left (each its own transaction).
    if (!told && onLongMigration !== undefined) {
      told = true;
      const work = longMigrationWork(db, MIGRATIONS.slice(version));
      if (work !== undefined)
        onLongMigration(`updating the database ${file} for this version of Lathe (once): ${work}…`);
    }
    db.exec(MIGRATIONS[version] as string);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step()) {
    // one migration per transaction, until none is left
  }
}
