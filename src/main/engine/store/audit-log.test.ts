import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog, type AuditRow } from "./audit-log.ts";
import { openDatabase, type Db } from "./database.ts";

let dir: string;
let db: Db;

const row = (i: number, sessionId = "s1"): AuditRow => ({
  callId: `c${i}`,
  sessionId,
  toolId: "read",
  originLayer: "builtin",
  originKind: "builtin",
  originName: null,
  descriptorHash: "abc",
  argsJson: JSON.stringify({ path: `f${i}` }),
  decisionsJson: "[]",
  outcome: "output",
  envelopeHead: "{}",
  durationMs: 1,
  startedAt: 1_700_000_000_000 + i,
});

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "lathe-audit-"));
  db = openDatabase(path.join(dir, "lathe.db"));
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe("AuditLog", () => {
  it("writes queued rows on the next turn of the event loop", async () => {
    const log = new AuditLog(db);
    log.record(row(1));
    log.record(row(2));
    expect(db.prepare("SELECT count(*) AS n FROM audit").get()).toEqual({ n: 0 });
    await new Promise((r) => setImmediate(r));
    expect(db.prepare("SELECT count(*) AS n FROM audit").get()).toEqual({ n: 2 });
  });

  it("writes a full batch at once", () => {
    const log = new AuditLog(db, 3);
    for (let i = 0; i < 3; i++) log.record(row(i));
    expect(db.prepare("SELECT count(*) AS n FROM audit").get()).toEqual({ n: 3 });
  });

  it("reads back rows in order, filtered by session", () => {
    const log = new AuditLog(db);
    log.record(row(1, "a"));
    log.record(row(2, "b"));
    log.record(row(3, "a"));
    expect(log.query({ sessionId: "a" }).map((r) => r.callId)).toEqual(["c1", "c3"]);
    expect(log.query().map((r) => r.callId)).toEqual(["c1", "c2", "c3"]);
  });

  it("survives a reopen of the database file (WAL)", () => {
    const log = new AuditLog(db);
    log.record(row(1));
    log.flush();
    db.close();
    db = openDatabase(path.join(dir, "lathe.db"));
    expect(new AuditLog(db).query()).toHaveLength(1);
  });
});
