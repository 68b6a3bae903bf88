// The store as it grows: `lathe session list` and `lathe session delete` must cost what the
// listed or deleted sessions hold, not what the rest of the store holds (every call ever audited
// in the folder, every checkpoint of every session). Each is measured on two stores that differ
// only in that rest (ten times more of it: the calls of the folder's agent runs, the checkpoints
// of other sessions); goal: under 50 ms each on the larger store, a person's command answering at
// once. Before their index fixes, the list walked the folder's whole audit trail once per call
// session (7.6 s here) and the delete every checkpoint once per checkpoint deleted (2.4 s).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openDatabase, writeTransaction, type Db } from "../src/main/engine/store/database.ts";
import { SessionCatalog } from "../src/main/engine/store/session-catalog.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const ROOT = "/work/bench-project";
const CALL_SESSIONS = 200;
const CALLS_PER_SESSION = 10;
const DELETED_CHECKPOINTS = 1_000;

/**
 * A store of `CALL_SESSIONS` call sessions in ROOT with their calls, `calls` calls of the folder's
 * agent runs, and `checkpoints` checkpoints of other sessions.
 */
function buildStore(db: Db, calls: number, checkpoints: number): void {
  writeTransaction(db, () => {
    const session = db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, 0)");
    for (let i = 0; i < CALL_SESSIONS; i++) session.run(`cs${i}`, ROOT);
    const audit = db.prepare(
      `INSERT INTO audit (call_id, session_id, root, tool_id, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at)
       VALUES (?, ?, ?, 'read', '{"path":"a.ts"}', '[]', 'output', '{}', 1, ?)`,
    );
    // Each call session's own calls, then the folder's other calls (its agent runs').
    for (let i = 0; i < CALL_SESSIONS * CALLS_PER_SESSION; i++)
      audit.run(`c${i}`, `cs${i % CALL_SESSIONS}`, ROOT, i);
    for (let i = 0; i < calls; i++) audit.run(`r${i}`, `s-run-${i % 50}`, ROOT, i);
    const checkpoint = db.prepare(
      "INSERT INTO checkpoints (session_id, root, kind, tool, created_at) VALUES (?, ?, 'tool', 'write', 0)",
    );
    for (let i = 0; i < checkpoints; i++) checkpoint.run(`cs${1 + (i % (CALL_SESSIONS - 1))}`, ROOT);
  })();
}

/** Add the session that is deleted, with its checkpoints (each restoring the one before it). */
function addDoomed(db: Db): void {
  writeTransaction(db, () => {
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES ('doomed', ?, 0)").run(ROOT);
    const checkpoint = db.prepare(
      "INSERT INTO checkpoints (session_id, root, kind, tool, created_at) VALUES ('doomed', ?, 'tool', 'write', 0)",
    );
    for (let i = 0; i < DELETED_CHECKPOINTS; i++) checkpoint.run(ROOT);
  })();
}

const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-store-"));
const figures: Record<"small" | "large", { list: number; remove: number; calls: number; rest: number }> = {
  small: { list: 0, remove: 0, calls: 20_000, rest: 5_000 },
  large: { list: 0, remove: 0, calls: 200_000, rest: 50_000 },
};
for (const [name, f] of Object.entries(figures)) {
  const db = openDatabase(path.join(dir, `${name}.db`));
  buildStore(db, f.calls, f.rest);
  const catalog = new SessionCatalog(db);
  f.list = median(await sample(() => catalog.listCallSessions({ root: ROOT, limit: 50 }), 5));
  const deletes: number[] = [];
  for (let run = 0; run < 3; run++) {
    addDoomed(db);
    deletes.push(...(await sample(() => catalog.delete("doomed"), 1, 0)));
  }
  f.remove = median(deletes);
  db.close();
}

heading(`The store as it grows (${CALL_SESSIONS} call sessions in one folder)`);
const { small, large } = figures;
compare({
  what: "session list (call sessions)",
  ours: { label: `beside ${large.calls} other calls in the folder`, value: large.list },
  theirs: { label: `beside ${small.calls}`, value: small.list },
  goal: "< 50 ms on the larger store",
  met: large.list < 50,
});
compare({
  what: `session delete (${DELETED_CHECKPOINTS} checkpoints)`,
  ours: { label: `among ${large.rest} other checkpoints`, value: large.remove },
  theirs: { label: `among ${small.rest}`, value: small.remove },
  goal: "< 50 ms on the larger store",
  met: large.remove < 50,
});

await rm(dir, { recursive: true, force: true });
