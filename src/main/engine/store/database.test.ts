import { spawn } from "node:child_process";
import { chmodSync, statSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import { openDatabase } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-db-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/**
 * `script` run in another process, with `m` (this module) and `file` in scope; resolves with its
 * exit code and output. `onReady` runs when the script prints "ready".
 */
function inAnotherProcess(
  file: string,
  script: string,
  onReady?: () => void,
): Promise<{ code: number | null; output: string }> {
  const module = fileURLToPath(new URL("./database.ts", import.meta.url));
  const source = `const file = ${JSON.stringify(file)}; import(${JSON.stringify(module)}).then((m) => { ${script} });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source]);
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
      if (/^ready$/m.test(c.toString())) onReady?.();
    });
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** `openDatabase(file)` in another process. */
function openElsewhere(file: string): Promise<{ code: number | null; output: string }> {
  return inAnotherProcess(file, `m.openDatabase(file).close(); console.log("opened");`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `openDatabase(file)` elsewhere while `other` holds the write lock for 400 ms: it must wait, then open. */
async function expectOpenedAfterCommit(other: Database.Database, file: string): Promise<void> {
  const opening = openElsewhere(file);
  await sleep(400);
  other.exec("COMMIT");
  other.close();
  const { code, output } = await opening;
  expect(output).toBe("opened\n");
  expect(code).toBe(0);
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
    await expectOpenedAfterCommit(other, file);
  });

  it("refuses a file written by a newer Lathe", () => {
    const file = path.join(dir, "lathe.db");
    const db = new Database(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/written by a newer Lathe .*Update Lathe, or set LATHE_HOME/);
    // A store failure (the CLI prints it as one line, as every other), not a bare Error.
    expect(() => openDatabase(file)).toThrow(StoreError);
  });

  it("refuses a file that is not a database with what to do, and leaves the file as it was", async () => {
    const file = path.join(dir, "lathe.db");
    const garbage = "these are notes, not a database\n".repeat(200);
    await writeFile(file, garbage);
    expect(() => openDatabase(file)).toThrow(
      /^Lathe could not open its database in .*lathe\.db: the file is not a Lathe database \(SQLITE_NOTADB\)\. Move .*lathe\.db aside/,
    );
    expect(await readFile(file, "utf8")).toBe(garbage);
  });

  it("switches a new file to WAL while another process holds its write lock, instead of failing as locked", async () => {
    // Several `lathe` processes starting on a fresh LATHE_HOME: one has the new file's write lock
    // before WAL is on. The switch reads, then upgrades to the write lock, and SQLite fails that
    // upgrade at once rather than wait (busy_timeout is not consulted there).
    const file = path.join(dir, "lathe.db");
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    await expectOpenedAfterCommit(other, file);
  });

  // A transaction that reads, then writes, while another process holds the write lock for 300 ms.
  const readThenWrite = (begin: string) => `
    const db = m.openDatabase(file);
    const body = () => {
      const { n } = db.prepare("SELECT COUNT(*) AS n FROM sessions").get();
      db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, 0)").run("s" + n, "/");
    };
    const tx = ${begin};
    console.log("ready");
    try { tx(); console.log("written"); } catch (e) { console.log(e.message); }`;

  it.each([
    // The control: a plain (deferred) transaction really fails, which is why none is used.
    [
      "a deferred transaction fails at once",
      "db.transaction(body)",
      /^ready\nLathe could not save its data in .*: another Lathe process holds its lock \(SQLITE_BUSY\)\. Wait for the other Lathe process to finish/,
    ],
    [
      "writeTransaction waits for the lock, then writes",
      "m.writeTransaction(db, body)",
      /^ready\nwritten\n$/,
    ],
  ])("read, then write, while another process writes: %s", async (_name, begin, expected) => {
    const file = path.join(dir, "lathe.db");
    openDatabase(file).close();
    const other = new Database(file);
    other.pragma("busy_timeout = 5000");
    let released: Promise<void> | undefined;
    other.exec("BEGIN IMMEDIATE");
    const { code, output } = await inAnotherProcess(file, readThenWrite(begin), () => {
      released = sleep(300).then(() => {
        other.exec("COMMIT");
        other.close();
      });
    });
    await released;
    expect(output).toMatch(expected);
    expect(code).toBe(0);
  });
});

describe("a database file gone or emptied while its WAL holds its latest changes", () => {
  /**
   * A Lathe database in `dir` whose last session ("s-last") is committed to its WAL only, as a
   * process killed mid-work leaves it: `lathe.db` and `lathe.db-wal` copied while it was open.
   */
  async function killedWithWal(): Promise<{ file: string; wal: Buffer }> {
    const live = path.join(dir, "live", "lathe.db");
    const db = openDatabase(live);
    db.pragma("wal_autocheckpoint = 0");
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s-last', '/w', 1)").run();
    const file = path.join(dir, "lathe.db");
    await copyFile(live, file);
    await copyFile(`${live}-wal`, `${file}-wal`);
    db.close();
    return { file, wal: await readFile(`${file}-wal`) };
  }

  const sessionsIn = (file: string): string[] => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare("SELECT id FROM sessions").pluck().all() as string[];
    } finally {
      db.close();
    }
  };

  it.each([
    ["missing (moved aside alone)", (file: string) => rename(file, `${file}.aside`), "missing"],
    ["empty", (file: string) => writeFile(file, ""), "empty"],
  ])("the file %s: refused with what to do, and the WAL is kept", async (_name, lose, said) => {
    // Positive control: plain SQLite, opened in WAL mode as Lathe opens it, drops the WAL without
    // a word and goes on with an empty database.
    const control = await killedWithWal();
    await lose(control.file);
    const plain = new Database(control.file);
    plain.pragma("journal_mode = WAL");
    expect(plain.prepare("SELECT COUNT(*) FROM sqlite_master").pluck().get()).toBe(0);
    plain.close();
    expect(statSync(`${control.file}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    await rm(dir, { recursive: true, force: true });

    const { file, wal } = await killedWithWal();
    await lose(file);
    expect(() => openDatabase(file)).toThrow(
      new RegExp(
        `^Lathe could not open its database in .*lathe\\.db: the file is ${said}, but .*lathe\\.db-wal beside it holds its latest changes \\(\\d+ bytes\\), which would be lost\\. If you moved .* away, put it back`,
      ),
    );
    expect(await readFile(`${file}-wal`)).toEqual(wal);
    // Put back beside its WAL, the file opens with the change the WAL held.
    await copyFile(path.join(dir, "live", "lathe.db"), file);
    await writeFile(`${file}-wal`, wal);
    openDatabase(file).close();
    expect(sessionsIn(file)).toEqual(["s-last"]);
  });

  it("opens a missing file beside a WAL that holds nothing (its header at most): a new database", async () => {
    const file = path.join(dir, "lathe.db");
    await writeFile(`${file}-wal`, "");
    openDatabase(file).close();
    expect(sessionsIn(file)).toEqual([]);
  });
});

describe.skipIf(process.platform === "win32")("who may read the database", () => {
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  it("is created readable by its owner alone, where plain SQLite would let everyone read it", () => {
    const previous = process.umask(0o022);
    try {
      // Positive control: SQLite alone creates the file for everyone to read (0644 under 022).
      const plain = path.join(dir, "plain.db");
      new Database(plain).close();
      expect(modeOf(plain) & 0o044).not.toBe(0);

      const file = path.join(dir, "home", "lathe.db");
      const db = openDatabase(file);
      db.prepare("CREATE TABLE IF NOT EXISTS t (x)").run();
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it.each([0o644, 0o640, 0o604, 0o666])(
    "narrows one an older Lathe left at %o, with its -wal and -shm",
    (mode) => {
      const file = path.join(dir, "lathe.db");
      const old = new Database(file);
      old.pragma("journal_mode = WAL");
      old.prepare("CREATE TABLE t (x)").run();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) chmodSync(f, mode);
      openDatabase(file).close();
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
      old.close();
    },
  );
});
