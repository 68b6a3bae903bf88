import type { Statement } from "better-sqlite3";
import type { Db } from "./database.ts";

/** One tool invocation as the audit trail keeps it. */
export interface AuditRow {
  callId: string;
  sessionId: string;
  toolId: string;
  originLayer: string | null;
  originKind: string | null;
  originName: string | null;
  descriptorHash: string | null;
  /** Arguments as JSON, secrets already redacted. */
  argsJson: string;
  /** Each decision on the way (capability, rule, watchdog, approval) with its reason, as JSON. */
  decisionsJson: string;
  outcome: "output" | "error";
  /** The start of the envelope, as JSON. */
  envelopeHead: string;
  durationMs: number;
  startedAt: number;
}

const COLUMNS =
  "call_id, session_id, tool_id, origin_layer, origin_kind, origin_name, descriptor_hash, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at";

/**
 * The audit trail in SQLite. Rows are queued and written in one transaction per batch (on the
 * next turn of the event loop, or when the batch is full), so recording never waits on disk in
 * the middle of a call; `flush()` writes what is pending at once.
 */
export class AuditLog {
  private readonly db: Db;
  private readonly insert: Statement<unknown[]>;
  private readonly writeBatch: (rows: AuditRow[]) => void;
  private pending: AuditRow[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly batchSize: number;

  constructor(db: Db, batchSize = 512) {
    this.db = db;
    this.batchSize = batchSize;
    this.insert = db.prepare(
      `INSERT INTO audit (${COLUMNS}) VALUES (${COLUMNS.split(",")
        .map(() => "?")
        .join(", ")})`,
    );
    this.writeBatch = db.transaction((rows: AuditRow[]) => {
      for (const r of rows) this.insertOne(r);
    });
  }

  private insertOne(r: AuditRow): void {
    this.insert.run(
      r.callId,
      r.sessionId,
      r.toolId,
      r.originLayer,
      r.originKind,
      r.originName,
      r.descriptorHash,
      r.argsJson,
      r.decisionsJson,
      r.outcome,
      r.envelopeHead,
      r.durationMs,
      r.startedAt,
    );
  }

  record(row: AuditRow): void {
    this.pending.push(row);
    if (this.pending.length >= this.batchSize) this.flush();
    else this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Write one row in its own transaction (the slow way; kept for the benchmark's comparison). */
  recordNow(row: AuditRow): void {
    this.db.transaction(() => this.insertOne(row))();
  }

  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    this.writeBatch(rows);
  }

  query(filter: { sessionId?: string; limit?: number } = {}): AuditRow[] {
    this.flush();
    const where = filter.sessionId ? "WHERE session_id = ?" : "";
    const params: unknown[] = filter.sessionId ? [filter.sessionId] : [];
    params.push(filter.limit ?? 1000);
    return this.db
      .prepare(
        `SELECT call_id AS callId, session_id AS sessionId, tool_id AS toolId, origin_layer AS originLayer,
                origin_kind AS originKind, origin_name AS originName, descriptor_hash AS descriptorHash,
                args_json AS argsJson, decisions_json AS decisionsJson, outcome, envelope_head AS envelopeHead,
                duration_ms AS durationMs, started_at AS startedAt
         FROM audit ${where} ORDER BY id DESC LIMIT ?`,
      )
      .all(...params)
      .reverse() as AuditRow[];
  }
}
