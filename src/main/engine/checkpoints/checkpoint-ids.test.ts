import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../store/database.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { SessionCatalog } from "../store/session-catalog.ts";
import { SessionStore } from "../store/session-store.ts";
import { CheckpointStore } from "./checkpoint-store.ts";

// A checkpoint id is what a person notes (or a script keeps) to run `lathe restore <id>` later:
// once given it must never name another checkpoint, even after the session that held it is
// deleted. SQLite's plain INTEGER PRIMARY KEY gives the next row max(id) + 1, so deleting the
// session with the newest checkpoints handed their ids to the next session's checkpoints.

let dir: string;
let file: string;
let db: Db | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-cp-ids-"));
  file = path.join(dir, "lathe.db");
});
afterEach(async () => {
  db?.close();
  db = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A checkpoint of a write to `file` in session `sessionId`; returns its id. */
function record(store: CheckpointStore, sessionId: string, name: string): number {
  return store.record({
    sessionId,
    root: "/ws",
    kind: "tool",
    tool: "write",
    callId: null,
    toolCallId: null,
    undoes: [],
    entries: [{ path: name, type: "file", before: { exists: false }, after: { exists: true, hash: null } }],
  }).id;
}

describe("checkpoint ids", () => {
  it("are not given again after the session holding the newest ones is deleted", () => {
    db = openDatabase(file);
    const sessions = new SessionStore(db);
    const checkpoints = new CheckpointStore(db);
    sessions.create("first", "/ws");
    sessions.create("second", "/ws");
    const first = record(checkpoints, "first", "a.txt");
    const second = [record(checkpoints, "second", "b.txt"), record(checkpoints, "second", "c.txt")];
    expect(new SessionCatalog(db).delete("second")).toEqual(["second"]);
    expect(checkpoints.get(second[0] as number)).toBeUndefined();

    // Closed and opened again, as the next `lathe` command does.
    db.close();
    db = openDatabase(file);
    const again = new CheckpointStore(db);
    new SessionStore(db).create("third", "/ws");
    const third = record(again, "third", "d.txt");
    expect(third).toBeGreaterThan(Math.max(first, ...second));
    // The ids the deleted session had name nothing, rather than the third session's checkpoint.
    for (const id of second) expect(again.get(id)).toBeUndefined();
    expect(again.get(third)?.sessionId).toBe("third");
  });

  it("of a store from before keep their ids, entries and restore links when it is migrated", () => {
    // The schema version before the one that keeps ids: the database of an older Lathe.
    const before = MIGRATIONS.findIndex((m) => m.includes("AUTOINCREMENT"));
    expect(before).toBeGreaterThan(0);
    const old = new Database(file);
    old.pragma("journal_mode = WAL");
    for (const migration of MIGRATIONS.slice(0, before)) old.exec(migration);
    old.pragma(`user_version = ${before}`);
    old
      .prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s1', '/ws', 1), ('s2', '/ws', 2)")
      .run();
    const checkpoint = old.prepare(
      `INSERT INTO checkpoints (id, session_id, root, kind, tool, call_id, message_seq, created_at, restored_by, undoes_json)
       VALUES (?, ?, '/ws', ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Ids with gaps (2 and 4 were deleted), a restore (7) that undid 3, and s2 holding the newest.
    checkpoint.run(1, "s1", "tool", "write", "call-1", 0, 100, null, null);
    checkpoint.run(3, "s1", "tool", "edit", "call-3", 1, 300, null, null);
    checkpoint.run(7, "s1", "restore", "restore", null, 2, 700, null, "[3]");
    old.prepare("UPDATE checkpoints SET restored_by = 7 WHERE id = 3").run();
    checkpoint.run(8, "s2", "tool", "bash", "call-8", null, 800, null, null);
    const entry = old.prepare(
      `INSERT INTO checkpoint_entries
         (checkpoint_id, path, type, before_exists, before_hash, before_mode, after_exists, after_hash, note, after_mode)
       VALUES (?, ?, 'file', ?, ?, ?, 1, ?, ?, ?)`,
    );
    entry.run(1, "a.txt", 0, null, null, "h1", null, 0o644);
    entry.run(3, "a.txt", 1, "h1", 0o644, "h3", "too big", null);
    entry.run(7, "a.txt", 1, "h3", 0o644, "h1", null, 0o600);
    entry.run(8, "b.txt", 0, null, null, "h8", null, 0o755);
    const rowsOf = (d: Database.Database) => ({
      checkpoints: d.prepare("SELECT * FROM checkpoints ORDER BY id").all(),
      entries: d.prepare("SELECT * FROM checkpoint_entries ORDER BY checkpoint_id, path").all(),
    });
    const kept = rowsOf(old);
    old.close();

    db = openDatabase(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(rowsOf(db)).toEqual(kept);
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const store = new CheckpointStore(db);
    expect(store.get(3)?.restoredBy).toBe(7);
    expect(store.get(7)?.undoes).toEqual([3]);
    expect(store.list("s1").map((c) => c.id)).toEqual([1, 3, 7]);

    // The links still hold: deleting a session deletes its checkpoints' entries, and a deleted
    // restore clears what it had restored; the ids of what is gone are not given again.
    expect(new SessionCatalog(db).delete("s2")).toEqual(["s2"]);
    expect(db.prepare("SELECT count(*) AS n FROM checkpoint_entries WHERE checkpoint_id = 8").get()).toEqual({
      n: 0,
    });
    db.prepare("DELETE FROM checkpoints WHERE id = 7").run();
    expect(store.get(3)?.restoredBy).toBeNull();
    new SessionStore(db).create("s3", "/ws");
    expect(record(store, "s3", "c.txt")).toBe(9);
    expect(db.pragma("foreign_key_check")).toEqual([]);
  });
});
