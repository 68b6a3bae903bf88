import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import { storeFailure } from "./store-failure.ts";

/** An error as better-sqlite3 throws it: a message and SQLite's extended code. */
const sqlite = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("storeFailure", () => {
  it.each([
    ["SQLITE_FULL", "database or disk is full", "the disk is full", /Free some space on that disk/],
    [
      "SQLITE_READONLY_DBMOVED",
      "attempt to write a readonly database",
      "read-only",
      /Make \/h\/lathe\.db and its folder writable/,
    ],
    [
      "SQLITE_CANTOPEN",
      "unable to open database file",
      "cannot be opened",
      /Check that \/h\/lathe\.db and its folder exist/,
    ],
    ["SQLITE_IOERR_SHMSIZE", "disk I/O error", "the disk is full", /Free some space on that disk/],
    ["SQLITE_IOERR_WRITE", "disk I/O error", "input/output error", /Check the disk/],
    [
      "SQLITE_CORRUPT",
      "database disk image is malformed",
      "damaged",
      /Move \/h\/lathe\.db aside with its \/h\/lathe\.db-wal and \/h\/lathe\.db-shm files/,
    ],
    [
      "SQLITE_NOTADB",
      "file is not a database",
      "not a Lathe database",
      /Move \/h\/lathe\.db aside with its \/h\/lathe\.db-wal and \/h\/lathe\.db-shm files/,
    ],
    [
      "SQLITE_BUSY",
      "database is locked",
      "another Lathe process holds its lock",
      /Wait for the other Lathe process/,
    ],
    // Node's file-system errors while the folder and the file are made, before SQLite opens it.
    [
      "EROFS",
      "EROFS: read-only file system, open '/h/lathe.db'",
      "the file system is read-only",
      /Set LATHE_HOME to a folder on a writable file system/,
    ],
    [
      "EACCES",
      "EACCES: permission denied, mkdir '/h'",
      "refused access",
      /Make \/h\/lathe\.db and its folder writable/,
    ],
    ["ENOSPC", "ENOSPC: no space left on device", "the disk is full", /Free some space on that disk/],
    [
      "ENOTDIR",
      "ENOTDIR: not a directory, mkdir '/h'",
      "is a file, not a folder",
      /is LATHE_HOME a folder\?/,
    ],
    [
      "EISDIR",
      "EISDIR: illegal operation on a directory, read",
      "it is a folder, not a file",
      /Move the folder \/h\/lathe\.db aside/,
    ],
  ])("%s says what went wrong, on which file, and what to do", (code, message, what, todo) => {
    const explained = storeFailure(sqlite(code, message), "/h/lathe.db", "save its data");
    expect(explained).toBeInstanceOf(StoreError);
    const text = (explained as StoreError).message;
    expect(text).toMatch(/^Lathe could not save its data in \/h\/lathe\.db: /);
    expect(text).toContain(what);
    expect(text).toContain(`(${code}).`);
    expect(text).not.toContain(message); // SQLite's own words add nothing to what is said
    expect(text).toMatch(todo);
    expect((explained as StoreError).cause).toBeInstanceOf(Error);
  });

  it.each([
    ["a query's own mistake", sqlite("SQLITE_ERROR", "no such table: nope")],
    ["a constraint", sqlite("SQLITE_CONSTRAINT_UNIQUE", "UNIQUE constraint failed: sessions.id")],
    ["a code that only starts alike", sqlite("SQLITE_FULLISH", "made up")],
    ["no code", new Error("plain")],
    ["not an error", "a string"],
  ])("leaves %s as it was", (_name, error) => {
    expect(storeFailure(error, "/h/lathe.db", "save its data")).toBe(error);
  });

  it("keeps a StoreError as it is (no message explained twice)", () => {
    const once = storeFailure(sqlite("SQLITE_FULL", "database or disk is full"), "/a", "save its data");
    expect(storeFailure(once, "/b", "read its data")).toBe(once);
  });
});
