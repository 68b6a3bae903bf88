import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { BlobStore, sha256Of } from "./blob-store.ts";

// A LATHE_HOME from before checkpoints recorded the mode a call left a file with: its lathe.db has
// the previous schema (no after_mode) and a checkpoint the older Lathe recorded. It opens, is
// migrated, and its old checkpoint restores exactly as before (its mode is not compared, so a
// chmod since is no conflict there); new checkpoints in the same database do compare it.

/** The schema version that adds after_mode: the database before it is the "old" one. */
const AFTER_MODE = MIGRATIONS.findIndex((m) => m.includes("after_mode"));

let base: string;
let root: string;
let home: string;
let engine: Engine | undefined;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-cp-migration-"));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
  root = await realpath(root);
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await rm(base, { recursive: true, force: true });
});

const SCRIPT = "#!/bin/sh\necho hi\n";
const WRITTEN = "#!/bin/sh\necho written\n";

/**
 * lathe.db at the schema before after_mode, holding checkpoint 1 of session s1: a write that
 * changed run.sh (644 before) and a.txt, recorded as the older Lathe did (no mode on the after side).
 */
async function oldDatabase(): Promise<void> {
  expect(AFTER_MODE).toBeGreaterThan(0);
  const db = new Database(path.join(home, "lathe.db"));
  db.pragma("journal_mode = WAL");
  for (const migration of MIGRATIONS.slice(0, AFTER_MODE)) db.exec(migration);
  db.pragma(`user_version = ${AFTER_MODE}`);
  const columns = db.prepare("SELECT name FROM pragma_table_info('checkpoint_entries')").all();
  expect(columns).not.toContainEqual({ name: "after_mode" });
  const blobs = new BlobStore(path.join(home, "checkpoints", "blobs"), db);
  const scriptBefore = await blobs.put(Buffer.from(SCRIPT));
  const aBefore = await blobs.put(Buffer.from("a1\n"));
  db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s1', ?, ?)").run(root, Date.now());
  db.prepare(
    "INSERT INTO checkpoints (id, session_id, root, kind, tool, created_at) VALUES (1, 's1', ?, 'tool', 'write', ?)",
  ).run(root, Date.now());
  const entry = db.prepare(
    `INSERT INTO checkpoint_entries
       (checkpoint_id, path, type, before_exists, before_hash, before_mode, after_exists, after_hash)
     VALUES (1, ?, 'file', 1, ?, ?, 1, ?)`,
  );
  entry.run("run.sh", scriptBefore, 0o644, sha256Of(Buffer.from(WRITTEN)));
  entry.run("a.txt", aBefore, 0o644, sha256Of(Buffer.from("a2\n")));
  db.close();
}

async function modeOf(relative: string): Promise<number> {
  return (await stat(path.join(root, relative))).mode & 0o7777;
}

describe("a database from before after_mode", () => {
  it("opens, is migrated, and its old checkpoint restores as before: content compared, mode not", async () => {
    await oldDatabase();
    // What the older Lathe's write left, then the person's changes: a chmod of run.sh, an edit of a.txt.
    await writeFile(path.join(root, "run.sh"), WRITTEN);
    await chmod(path.join(root, "run.sh"), 0o755);
    await writeFile(path.join(root, "a.txt"), "a typed by the person\n");

    engine = await Engine.create({ root, latheHome: home, extensions: false });
    const plan = await engine.checkpoints.previewRestore("s1", 1);
    expect(plan.paths).toEqual([
      {
        path: "a.txt",
        type: "file",
        action: "restore",
        conflict: "it was changed since, outside this session's tools (by you or another program)",
      },
      // The old entry never knew the mode the write left: as before, the chmod is not seen.
      { path: "run.sh", type: "file", action: "restore" },
    ]);
    const db = new Database(path.join(home, "lathe.db"), { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT after_mode FROM checkpoint_entries ORDER BY path").all()).toEqual([
      { after_mode: null },
      { after_mode: null },
    ]);
    db.close();

    const outcome = await engine.checkpoints.restore("s1", 1, { choices: { "a.txt": "keep" } });
    expect(outcome).toMatchObject({ applied: true, failed: [] });
    expect(await readFile(path.join(root, "run.sh"), "utf8")).toBe(SCRIPT);
    expect(await modeOf("run.sh")).toBe(0o644);
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("a typed by the person\n");
  });

  it("keeps working: a new call's checkpoint in it records the mode left, and a chmod since is a conflict", async () => {
    await oldDatabase();
    engine = await Engine.create({ root, latheHome: home, extensions: false });
    const session = await engine.openSession({ id: "s2", mode: "yolo" });
    await writeFile(path.join(root, "new.sh"), SCRIPT);
    expect((await session.call("read", { path: "new.sh" })).type).toBe("output");
    expect((await session.call("write", { path: "new.sh", content: WRITTEN })).type).toBe("output");
    const [checkpoint] = engine.checkpoints.list("s2");
    await chmod(path.join(root, "new.sh"), 0o700);
    const plan = await engine.checkpoints.previewRestore("s2", checkpoint!.id);
    expect(plan.paths[0]?.conflict).toMatch(
      /^its mode was changed since \(700 now, 6\d\d when write left it\)/,
    );
    await session.close();
  });
});
