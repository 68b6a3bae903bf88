import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-db-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** `openDatabase(file)` in another process; resolves with its exit code and output. */
function openElsewhere(file: string): Promise<{ code: number | null; output: string }> {
  const module = fileURLToPath(new URL("./database.ts", import.meta.url));
  const script = `import(${JSON.stringify(module)}).then((m) => { m.openDatabase(${JSON.stringify(file)}).close(); console.log("opened"); });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script]);
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the database", () => {
  it("brings a new file to the newest schema, once", () => {
    const file = path.join(dir, "lathe.db");
    openDatabase(file).close();
    const db = openDatabase(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("waits for another process migrating the same new file instead of migrating it twice", async () => {
    const file = path.join(dir, "lathe.db");
    // Another process has started on the fresh file: it holds the write lock mid-migration.
    const other = new Database(file);
    other.pragma("journal_mode = WAL");
    other.exec("BEGIN IMMEDIATE");
    for (const migration of MIGRATIONS) other.exec(migration);
    other.pragma(`user_version = ${MIGRATIONS.length}`);
    const opening = openElsewhere(file);
    await new Promise((r) => setTimeout(r, 400));
    other.exec("COMMIT");
    other.close();
    const { code, output } = await opening;
    expect(output).toBe("opened\n");
    expect(code).toBe(0);
  });

  it("refuses a file written by a newer Lathe", () => {
    const file = path.join(dir, "lathe.db");
    const db = new Database(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/written by a newer Lathe .*Update Lathe/);
  });
});
