import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLog, type AuditRow } from "./audit-log.ts";
import { openDatabase, type Db } from "./database.ts";
import { MIGRATIONS } from "./migrations.ts";

let dir: string;
let db: Db;

const row = (i: number, sessionId = "s1", root = "/projects/a"): AuditRow => ({
  callId: `c${i}`,
  sessionId,
  root,
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
    const log = new AuditLog(db, { batchSize: 3 });
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

  describe("filters for the audit view", () => {
    const decided = (outcome: "allow" | "deny") =>
      JSON.stringify([
        { stage: "capability", outcome: "allow", reason: "inside the workspace" },
        {
          stage: "approval",
          outcome,
          reason: outcome === "deny" ? "the user rejected the call" : "allowed once",
        },
      ]);
    const trail = (): AuditLog => {
      const log = new AuditLog(db);
      log.record({ ...row(1, "a"), toolId: "read" });
      log.record({ ...row(2, "a"), toolId: "write", outcome: "error", decisionsJson: decided("deny") });
      log.record({ ...row(3, "b"), toolId: "write", decisionsJson: decided("allow") });
      log.record({ ...row(4, "b"), toolId: "bash", outcome: "error", decisionsJson: decided("allow") });
      log.record({ ...row(5, "a"), toolId: "read" });
      return log;
    };
    const ids = (entries: Array<{ callId: string }>) => entries.map((e) => e.callId);

    it.each([
      [{ sessionId: "a" }, ["c1", "c2", "c5"]],
      [{ toolId: "write" }, ["c2", "c3"]],
      [{ outcome: "output" as const }, ["c1", "c3", "c5"]],
      [{ outcome: "denied" as const }, ["c2"]],
      // A failed call that no stage refused; a denied one is not counted twice.
      [{ outcome: "error" as const }, ["c4"]],
      [{ sessionId: "b", toolId: "write", outcome: "output" as const }, ["c3"]],
      [{ sessionId: "nobody" }, []],
      // A time window: from `since` (included) to `until` (left out), with the other filters.
      [{ since: 1_700_000_000_003 }, ["c3", "c4", "c5"]],
      [{ until: 1_700_000_000_003 }, ["c1", "c2"]],
      [{ since: 1_700_000_000_002, until: 1_700_000_000_005 }, ["c2", "c3", "c4"]],
      [{ since: 1_700_000_000_002, until: 1_700_000_000_005, toolId: "write" }, ["c2", "c3"]],
      [{ since: 1_700_000_000_006 }, []],
    ])("narrows to %o", (filter, expected) => {
      expect(ids(trail().query(filter))).toEqual(expected);
    });

    it("pages back from the newest with beforeId and limit", () => {
      const log = trail();
      const newest = log.query({ limit: 2 });
      expect(ids(newest)).toEqual(["c4", "c5"]);
      const older = log.query({ limit: 2, beforeId: newest[0]?.id });
      expect(ids(older)).toEqual(["c2", "c3"]);
      expect(ids(log.query({ limit: 2, beforeId: older[0]?.id }))).toEqual(["c1"]);
    });

    it("names the sessions and tools it holds, most recent first", () => {
      expect(trail().facets()).toEqual({ sessions: ["a", "b"], tools: ["read", "bash", "write"] });
    });
  });

  describe("one folder's calls", () => {
    const trail = (): AuditLog => {
      const log = new AuditLog(db);
      log.record({ ...row(1, "a", "/projects/a"), toolId: "read" });
      log.record({ ...row(2, "b", "/projects/b"), toolId: "bash" });
      log.record({ ...row(3, "a", "/projects/a"), toolId: "write" });
      log.record({ ...row(4, "c", "/projects/a-b"), toolId: "glob" });
      return log;
    };

    it.each([
      ["/projects/a", ["c1", "c3"]],
      ["/projects/b", ["c2"]],
      // Another folder whose path starts the same is another folder.
      ["/projects/a-b", ["c4"]],
      ["/projects", []],
    ])("lists only the calls made in %s", (root, expected) => {
      expect(
        trail()
          .query({ root })
          .map((e) => e.callId),
      ).toEqual(expected);
    });

    it("lists every folder's without a root, each row naming its folder", () => {
      expect(
        trail()
          .query()
          .map((e) => [e.callId, e.root]),
      ).toEqual([
        ["c1", "/projects/a"],
        ["c2", "/projects/b"],
        ["c3", "/projects/a"],
        ["c4", "/projects/a-b"],
      ]);
    });

    it("offers only that folder's sessions and tools as filters", () => {
      const log = trail();
      expect(log.facets("/projects/a")).toEqual({ sessions: ["a"], tools: ["write", "read"] });
      expect(log.facets("/projects/b")).toEqual({ sessions: ["b"], tools: ["bash"] });
      expect(log.facets("/elsewhere")).toEqual({ sessions: [], tools: [] });
      expect(log.facets()).toEqual({ sessions: ["c", "a", "b"], tools: ["glob", "write", "bash", "read"] });
    });
  });
});

describe("a trail written before the folder was recorded", () => {
  /** A database as the Lathe before this migration left it, holding two audit rows. */
  function oldDatabase(file: string): void {
    const old = new Database(file);
    // Every migration before the one that added the folder (later ones came after it).
    const before = MIGRATIONS.findIndex((m) => m.includes("ALTER TABLE audit ADD COLUMN root"));
    expect(before).toBeGreaterThan(0);
    for (const migration of MIGRATIONS.slice(0, before)) old.exec(migration);
    old.pragma(`user_version = ${before}`);
    const insert = old.prepare(
      `INSERT INTO audit (call_id, session_id, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, 's-old', 'read', '{}', '[]', 'output', '{}', 1, 1700000000000)`,
    );
    insert.run("old-1");
    insert.run("old-2");
    old.close();
  }

  it("keeps its rows, with no folder, beside the new rows that have one", () => {
    db.close();
    const file = path.join(dir, "old.db");
    oldDatabase(file);
    db = openDatabase(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'").pluck().all(),
    ).toContain("audit_by_root");
    const log = new AuditLog(db);
    log.record(row(3, "s-new", "/projects/a"));
    expect(log.query().map((e) => [e.callId, e.root])).toEqual([
      ["old-1", null],
      ["old-2", null],
      ["c3", "/projects/a"],
    ]);
    // A folder's view has only what was recorded in it.
    expect(log.query({ root: "/projects/a" }).map((e) => e.callId)).toEqual(["c3"]);
    expect(log.facets("/projects/a").sessions).toEqual(["s-new"]);
  });
});

describe("a trail written before its errors were indexed", () => {
  const ERRORS_INDEXED = MIGRATIONS.findIndex((m) => m.includes("audit_errors_by_root"));

  /** A database file as the Lathe before that migration left it: outputs, errors, refusals. */
  function olderTrail(file: string): void {
    expect(ERRORS_INDEXED).toBeGreaterThan(0);
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, ERRORS_INDEXED)) old.exec(migration);
    old.pragma(`user_version = ${ERRORS_INDEXED}`);
    const insert = old.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, 's', ?, 'bash', '{}', ?, ?, '{}', 1, 1700000000000)`,
    );
    const refused = JSON.stringify([{ stage: "rule", outcome: "deny", reason: "a rule" }]);
    insert.run("ok-1", "/projects/a", "[]", "output");
    insert.run("failed-1", "/projects/a", "[]", "error");
    insert.run("refused-1", "/projects/a", refused, "error");
    insert.run("failed-elsewhere", "/projects/b", "[]", "error");
    insert.run("ok-2", "/projects/a", "[]", "output");
    old.close();
  }

  it("keeps every row, and --outcome finds the same ones through the new index", () => {
    db.close();
    const file = path.join(dir, "older.db");
    olderTrail(file);
    db = openDatabase(file);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'").pluck().all(),
    ).toEqual(expect.arrayContaining(["audit_errors_by_root", "audit_errors"]));
    const log = new AuditLog(db);
    const ids = (filter: Parameters<AuditLog["query"]>[0]) => log.query(filter).map((e) => e.callId);
    expect(ids({})).toEqual(["ok-1", "failed-1", "refused-1", "failed-elsewhere", "ok-2"]);
    expect(ids({ root: "/projects/a", outcome: "error" })).toEqual(["failed-1"]);
    expect(ids({ root: "/projects/a", outcome: "denied" })).toEqual(["refused-1"]);
    expect(ids({ root: "/projects/a", outcome: "output" })).toEqual(["ok-1", "ok-2"]);
    expect(ids({ outcome: "error" })).toEqual(["failed-1", "failed-elsewhere"]);
    // Rows written after the migration are in the index too.
    log.record({ ...row(9, "s", "/projects/a"), callId: "failed-new", outcome: "error" });
    expect(ids({ root: "/projects/a", outcome: "error" })).toEqual(["failed-1", "failed-new"]);
  });
});

describe("AuditLog.prune", () => {
  it("deletes every older row past one chunk's worth, the folder's alone unless none is named", () => {
    const log = new AuditLog(db);
    const old = 1_700_000_000_000;
    const insert = db.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, 's', ?, 'read', '{}', '[]', 'output', '{}', 1, ?)`,
    );
    // More old rows than one transaction deletes, interleaved with a newer one now and then.
    db.transaction(() => {
      for (let i = 0; i < 25_000; i++) {
        insert.run(`a${i}`, "/projects/a", old + i);
        if (i % 5_000 === 0) insert.run(`new${i}`, "/projects/a", old + 10 * 86_400_000);
      }
      insert.run("b-old", "/projects/b", old);
      insert.run("unrecorded-folder", null, old);
    })();
    const cutoff = old + 86_400_000;
    expect(log.prune({ before: cutoff, root: "/projects/a" })).toBe(25_000);
    expect(log.query({ root: "/projects/a" }).map((e) => e.callId)).toEqual([
      "new0",
      "new5000",
      "new10000",
      "new15000",
      "new20000",
    ]);
    expect(log.prune({ before: cutoff })).toBe(2);
    expect(log.query().map((e) => e.callId)).not.toContain("b-old");
    expect(log.prune({ before: cutoff })).toBe(0);
  });
});
