import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "./database.ts";
import { SessionCatalog } from "./session-catalog.ts";
import { AuditLog } from "./audit-log.ts";

// The store grows for as long as Lathe is used: hundreds of thousands of audit rows, tens of
// thousands of checkpoints and task links. What a person runs against it (session list, session
// delete) must find its rows through an index, not by walking a whole table once per session:
// such a walk costs nothing on a test's few rows and tens of seconds on a real machine's store.
// SQLite's plan is what decides it, and the plan does not depend on how many rows there are
// (Lathe keeps no statistics), so each row below asserts the plan, not a time (the figures are
// in bench/store.bench.ts).

let db: Db;

beforeEach(() => {
  db = openDatabase(":memory:");
});
afterEach(() => db.close());

/** The SQL of every statement `action` prepares, in order. */
function statementsOf(action: () => void): string[] {
  const prepare = db.prepare.bind(db);
  const seen: string[] = [];
  db.prepare = ((source: string) => {
    seen.push(source);
    return prepare(source);
  }) as Db["prepare"];
  try {
    action();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

/** SQLite's plan for `sql`, one line per step ("SCAN t", "SEARCH t USING INDEX …"). */
function planOf(sql: string): string[] {
  const positional = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
  const named = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], null]));
  const explain = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const bound = Object.keys(named).length > 0 ? [...positional, named] : positional;
  return (explain.all(...bound) as Array<{ detail: string }>).map((row) => row.detail);
}

/** The steps of `action`'s statements that touch `table` (by its alias or name). */
function stepsOn(table: string, alias: string, action: () => void): string[] {
  return statementsOf(action)
    .flatMap(planOf)
    .filter((step) => new RegExp(`^(SCAN|SEARCH) (${table}|${alias})\\b`).test(step));
}

describe("what a person runs on a large store finds its rows through an index", () => {
  it("session list: a call session's calls are looked up by its id, not by walking its folder's calls", () => {
    const catalog = new SessionCatalog(db);
    const steps = stepsOn("audit", "a", () => catalog.listCallSessions({ root: "/w" }));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps)
      expect(step).toMatch(/USING (COVERING )?INDEX audit_by_session \(session_id=\?\)/);
  });

  it.each([
    ["session list", (catalog: SessionCatalog) => catalog.list({ root: "/w" })],
    ["session list --search", (catalog: SessionCatalog) => catalog.list({ root: "/w", query: "x" })],
    [
      "session delete",
      (catalog: SessionCatalog) => {
        db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('s', '/w', 0)").run();
        catalog.delete("s");
      },
    ],
  ])("%s: a task's link is found by the task's own session id", (_what, action) => {
    const catalog = new SessionCatalog(db);
    const steps = stepsOn("child_tasks", "ct", () => action(catalog)).filter(
      (step) => !/USING (COVERING )?INDEX sqlite_autoindex_child_tasks_1 \(parent_session_id=\?/.test(step),
    );
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps)
      expect(step).toMatch(/USING (COVERING )?INDEX child_tasks_by_child \(child_session_id=\?\)/);
  });
});

describe("session list --search", () => {
  it("finds the messages that contain the text through the trigram index, without reading every message", () => {
    const catalog = new SessionCatalog(db);
    const action = (): void => void catalog.list({ root: "/w", query: "kangaroo" });
    const steps = [...stepsOn("messages", "m", action), ...stepsOn("message_parts", "p", action)];
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step).toMatch(/^SEARCH /);
    expect(statementsOf(action).flatMap(planOf)).toContainEqual(
      expect.stringMatching(/^SCAN message_text_index VIRTUAL TABLE INDEX/),
    );
  });
});

// The lookups SQLite makes itself when a row a foreign key points at is deleted (ON DELETE
// CASCADE / SET NULL), one per row deleted: a session delete deletes every row of its session.
const FOREIGN_KEY_LOOKUPS = [
  {
    what: "session delete: the checkpoints that a deleted checkpoint restored are found by it",
    sql: "SELECT 1 FROM checkpoints WHERE restored_by = ?",
    table: "checkpoints",
  },
];

describe("deleting a session finds what points at each row it deletes through an index", () => {
  it.each(FOREIGN_KEY_LOOKUPS)("$what", ({ sql, table }) => {
    const steps = planOf(sql);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatch(new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX`));
  });
});

// The app's Audit view and `lathe audit` narrow a folder's trail by session or tool; a trail of
// 500,000 rows took 0.7 s per such filter and 1.4 s for the view's list of sessions when the
// only index was (root, id): every row of the folder was walked, newest first.
describe("an audit view's filters on a large trail", () => {
  it.each([
    [
      "a session of the folder",
      { root: "/w", sessionId: "s" },
      /audit_by_root_session \(root=\? AND session_id=\?\)/,
    ],
    ["a tool of the folder", { root: "/w", toolId: "read" }, /audit_by_root_tool \(root=\? AND tool_id=\?\)/],
  ] as const)("%s is found through an index on both", (_what, filter, index) => {
    const log = new AuditLog(db);
    const steps = stepsOn("audit", "a", () => log.query(filter));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step).toMatch(index);
  });

  // --outcome error|denied walked the folder's every row to find its few failures: 0.45–0.7 s on
  // 500,000 rows. They are found among the errors alone, through an index that holds only them.
  it.each([
    ["the folder's errors", { root: "/w", outcome: "error" }, /audit_errors_by_root \(root=\?\)/],
    ["the folder's refused calls", { root: "/w", outcome: "denied" }, /audit_errors_by_root \(root=\?\)/],
    ["every folder's errors (--all)", { outcome: "error" }, /USING INDEX audit_errors\b/],
    ["every folder's refused calls (--all)", { outcome: "denied" }, /USING INDEX audit_errors\b/],
  ] as const)("%s are found through the index of errors", (_what, filter, index) => {
    const log = new AuditLog(db);
    const steps = stepsOn("audit", "a", () => log.query(filter));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step).toMatch(index);
  });

  it("the folder's sessions, for the view's filter, are read from an index alone", () => {
    const log = new AuditLog(db);
    const steps = stepsOn("audit", "a", () => log.facets("/w"));
    expect(steps.some((step) => /COVERING INDEX audit_by_root_session \(root=\?\)/.test(step))).toBe(true);
  });
});
