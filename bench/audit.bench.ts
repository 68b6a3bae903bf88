// Audit trail throughput: rows written in batches (one transaction per batch, as the engine
// does) against one transaction per row. Goal: ≥ 100,000 rows/s batched.
//
// Then a trail of TRAIL_ROWS calls, 1% of them failed or refused: `lathe audit --outcome
// denied|error` through the index of errors against the same query once that index is dropped
// (the walk of the folder's rows it replaced), what building that index costs once, and `lathe
// audit prune` of the older half: how long, and the file on disk before and after.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AuditLog, type AuditRow } from "../src/main/engine/store/audit-log.ts";
import { openDatabase, writeTransaction } from "../src/main/engine/store/database.ts";
import { databaseBytes, reclaimFreePages } from "../src/main/engine/store/reclaimed-space.ts";
import { compare, heading, median, sample } from "./lib/report.ts";

const BATCHED_ROWS = 200_000;
const SINGLE_ROWS = 5_000;
const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-bench-audit-"));
const db = openDatabase(path.join(dir, "lathe.db"));
const log = new AuditLog(db);

const row = (i: number): AuditRow => ({
  callId: `call-${i}`,
  sessionId: "bench",
  root: "/work/bench-project",
  toolId: i % 3 === 0 ? "read" : i % 3 === 1 ? "grep" : "bash",
  originLayer: "builtin",
  originKind: "builtin",
  originName: null,
  descriptorHash: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
  argsJson: JSON.stringify({ path: `src/module-${i}.ts`, offset: 1, limit: 200 }),
  decisionsJson:
    '[{"stage":"capability","outcome":"allow","reason":"within the tool\'s declared requirements"},{"stage":"rule","outcome":"allow","reason":"user rule"}]',
  outcome: "output",
  envelopeHead: `{"type":"output","data":{"path":"src/module-${i}.ts","content":"export const x = ${i};\\n"},"metadata":{"duration_ms":1}}`,
  durationMs: 1,
  startedAt: Date.now(),
});

let t0 = performance.now();
for (let i = 0; i < BATCHED_ROWS; i++) log.record(row(i));
log.flush();
const batchedRate = BATCHED_ROWS / ((performance.now() - t0) / 1000);

t0 = performance.now();
for (let i = 0; i < SINGLE_ROWS; i++) log.recordNow(row(BATCHED_ROWS + i));
const singleRate = SINGLE_ROWS / ((performance.now() - t0) / 1000);

heading("Audit inserts (SQLite, WAL)");
compare({
  what: "rows per second",
  ours: { label: `batched (${BATCHED_ROWS} rows)`, value: batchedRate, unit: "rows/s" },
  theirs: { label: `one transaction per row (${SINGLE_ROWS} rows)`, value: singleRate, unit: "rows/s" },
  goal: "≥ 100,000 rows/s batched",
  met: batchedRate >= 100_000,
});

db.close();

// ---- a large trail: --outcome, and prune ----------------------------------------------------

const TRAIL_ROWS = 500_000;
const ROOT = "/work/bench-project";
const trailFile = path.join(dir, "trail.db");
const trail = openDatabase(trailFile);
const trailLog = new AuditLog(trail);
const REFUSED = '[{"stage":"rule","outcome":"deny","reason":"user rule"}]';
const DAY = 86_400_000;
const start = Date.now() - 60 * DAY;
writeTransaction(trail, () => {
  for (let i = 0; i < TRAIL_ROWS; i++) {
    const failed = i % 100 === 0;
    trailLog.record({
      ...row(i),
      outcome: failed ? "error" : "output",
      decisionsJson: failed && i % 200 === 0 ? REFUSED : row(i).decisionsJson,
      // Spread over 60 days, oldest first, as a trail grows.
      startedAt: start + Math.floor((i / TRAIL_ROWS) * 60 * DAY),
    });
  }
  trailLog.flush();
})();

const outcomeQuery = (outcome: "denied" | "error") => () => trailLog.query({ root: ROOT, outcome });
const indexed = {
  denied: median(await sample(outcomeQuery("denied"), 5)),
  error: median(await sample(outcomeQuery("error"), 5)),
};
const ERROR_INDEXES = [
  "CREATE INDEX audit_errors_by_root ON audit (root, id) WHERE outcome = 'error'",
  "CREATE INDEX audit_errors ON audit (id) WHERE outcome = 'error'",
];
trail.exec("DROP INDEX audit_errors_by_root; DROP INDEX audit_errors;");
const walked = {
  denied: median(await sample(outcomeQuery("denied"), 5)),
  error: median(await sample(outcomeQuery("error"), 5)),
};
const buildStart = performance.now();
for (const sql of ERROR_INDEXES) trail.exec(sql);
const build = performance.now() - buildStart;

heading(`lathe audit --outcome on a trail of ${TRAIL_ROWS} calls (1% failed, half of those refused)`);
for (const outcome of ["denied", "error"] as const) {
  compare({
    what: `--outcome ${outcome}, newest 1000`,
    ours: { label: "index of errors", value: indexed[outcome] },
    theirs: { label: "walking the folder's rows", value: walked[outcome] },
    goal: "< 50 ms",
    met: indexed[outcome] < 50,
  });
}
compare({
  what: "building the index of errors (the migration, once)",
  ours: { label: "both indexes", value: build },
  theirs: { label: "--outcome error before it", value: walked.error },
});

const bytesBefore = databaseBytes(trailFile);
const pruneStart = performance.now();
const removed = trailLog.prune({ before: start + 30 * DAY, root: ROOT });
const deleted = performance.now() - pruneStart;
reclaimFreePages(trail);
const pruned = performance.now() - pruneStart;
const bytesAfter = databaseBytes(trailFile);
heading(`lathe audit prune --older-than 30d on the same trail (${removed} of ${TRAIL_ROWS} rows go)`);
compare({
  what: "prune, whole (delete + VACUUM)",
  ours: { label: "delete + VACUUM", value: pruned },
  theirs: { label: "delete alone", value: deleted },
});
compare({
  what: "the database on disk",
  ours: { label: "after", value: bytesAfter / (1024 * 1024), unit: "MB" },
  theirs: { label: "before", value: bytesBefore / (1024 * 1024), unit: "MB" },
});
trail.close();
await rm(dir, { recursive: true, force: true });
