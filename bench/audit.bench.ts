// Audit trail throughput: rows written in batches (one transaction per batch, as the engine
// does) against one transaction per row. Goal: ≥ 100,000 rows/s batched.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AuditLog, type AuditRow } from "../src/main/engine/store/audit-log.ts";
import { openDatabase } from "../src/main/engine/store/database.ts";
import { compare, heading } from "./lib/report.ts";

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
await rm(dir, { recursive: true, force: true });
