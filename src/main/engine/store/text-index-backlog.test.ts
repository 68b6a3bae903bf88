import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import { openDatabase } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";
import { BACKLOG_CHUNK, unindexedBelow } from "./text-index-backlog.ts";

// A person upgrades Lathe over a store of many conversations: the engine opens it at once and
// indexes the old messages for search in the background, a chunk at a time; closing the engine
// midway stops it cleanly, and the next engine goes on from there.

let base: string;
let root: string;
let home: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-text-backlog-"));
  root = path.join(base, "ws");
  home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
  root = await realpath(root);
});
afterEach(async () => rm(base, { recursive: true, force: true }));

const MESSAGES = BACKLOG_CHUNK * 8;

/** lathe.db as the Lathe before the text index left it: MESSAGES messages in one conversation. */
function oldStore(): void {
  const before = MIGRATIONS.findIndex((m) => m.includes("message_text_index"));
  const db = new Database(path.join(home, "lathe.db"));
  db.pragma("journal_mode = WAL");
  for (const migration of MIGRATIONS.slice(0, before)) db.exec(migration);
  db.pragma(`user_version = ${before}`);
  db.transaction(() => {
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('old', ?, 1)").run(root);
    db.prepare(
      "INSERT INTO conversations (session_id, agent, model, created_at, updated_at) VALUES ('old', 'default', 'm', 1, 1)",
    ).run();
    const message = db.prepare(
      "INSERT INTO messages (id, session_id, seq, run_id, role, created_at) VALUES (?, 'old', ?, 'r', 'user', 1)",
    );
    const part = db.prepare(
      "INSERT INTO message_parts (message_id, position, type, text) VALUES (?, 0, 'text', ?)",
    );
    for (let id = 1; id <= MESSAGES; id++) {
      message.run(id, id);
      part.run(id, id === 1 ? "the very first: platypus" : `message number ${id}`);
    }
  })();
  db.close();
}

describe("the search index of a store recorded before it", () => {
  it("is built in the background once the engine opens the store; a search finds old messages all along", async () => {
    oldStore();
    const engine = await Engine.create({ root, latheHome: home, extensions: false });
    try {
      expect(engine.searchBacklog()).toBeGreaterThan(0);
      expect(
        engine
          .sessionCatalog()
          .list({ root, query: "platypus" })
          .map((s) => s.id),
      ).toEqual(["old"]);
      await engine.searchIndexed();
      expect(engine.searchBacklog()).toBe(0);
      expect(
        engine
          .sessionCatalog()
          .list({ root, query: "platypus" })
          .map((s) => s.id),
      ).toEqual(["old"]);
    } finally {
      await engine.close();
    }
  });

  it("stops when the engine closes midway, and the next engine goes on from where it stopped", async () => {
    oldStore();
    const first = await Engine.create({ root, latheHome: home, extensions: false });
    const started = first.searchBacklog();
    // Let a chunk or two go by, then close: the loop stops between chunks.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await first.close();
    const db = openDatabase(path.join(home, "lathe.db"));
    const left = unindexedBelow(db);
    db.close();
    expect(left).toBeDefined();
    expect(started).toBeGreaterThan(0);

    const second = await Engine.create({ root, latheHome: home, extensions: false });
    try {
      await second.searchIndexed();
      expect(second.searchBacklog()).toBe(0);
      expect(second.sessionCatalog().list({ root, query: "number 1" }).length).toBe(1);
    } finally {
      await second.close();
    }
    const check = openDatabase(path.join(home, "lathe.db"));
    expect(check.prepare("SELECT COUNT(*) FROM message_text_index").pluck().get()).toBe(MESSAGES);
    check.close();
  });
});
