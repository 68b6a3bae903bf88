import type { Statement } from "better-sqlite3";
import { type Db, writeTransaction } from "./database.ts";

/** One tool invocation as the audit trail keeps it. */
export interface AuditRow {
  callId: string;
  sessionId: string;
  /** The workspace folder the call ran in: the engine's real path. */
  root: string;
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

/**
 * A recorded row with its place in the trail (newer rows have larger ids). `root` is null for
 * rows written before Lathe recorded the folder.
 */
export interface AuditEntry extends Omit<AuditRow, "root"> {
  id: number;
  root: string | null;
}

/** How an audit view narrows the trail; every field is optional and they combine. */
interface AuditFilter {
  /**
   * Only the calls made in this folder (an engine's real path). Without it, every folder's,
   * including the rows from before the folder was recorded.
   */
  root?: string;
  sessionId?: string;
  toolId?: string;
  /**
   * output: it ran and answered; error: it ran (or was set up) and failed; denied: a stage said
   * no (capability, rule, watchdog or approval) — such a call's envelope is an error too.
   */
  outcome?: "output" | "error" | "denied";
  /** Only calls that started at or after this time (milliseconds since the epoch). */
  since?: number;
  /** Only calls that started before this time (milliseconds since the epoch). */
  until?: number;
  /** Only rows older than this id: the next page of a view that shows the newest first. */
  beforeId?: number;
  /** At most this many rows, the newest that match (default 1000). */
  limit?: number;
}

/** The sessions and tools the trail names, most recent first, to offer as filters. */
interface AuditFacets {
  sessions: string[];
  tools: string[];
}

/**
 * A stage said no. A row whose decisions are not JSON (an older Lathe's redaction could break
 * it) is read as text, so one such row does not fail every query that filters by outcome.
 */
const DENIED = `CASE WHEN json_valid(decisions_json)
  THEN EXISTS (SELECT 1 FROM json_each(decisions_json) WHERE json_extract(value, '$.outcome') = 'deny')
  ELSE decisions_json LIKE '%"outcome":"deny"%' END`;

const SELECTED = `id, call_id AS callId, session_id AS sessionId, root, tool_id AS toolId, origin_layer AS originLayer,
  origin_kind AS originKind, origin_name AS originName, descriptor_hash AS descriptorHash,
  args_json AS argsJson, decisions_json AS decisionsJson, outcome, envelope_head AS envelopeHead,
  duration_ms AS durationMs, started_at AS startedAt`;

const COLUMNS =
  "call_id, session_id, root, tool_id, origin_layer, origin_kind, origin_name, descriptor_hash, args_json, decisions_json, outcome, envelope_head, duration_ms, started_at";

/** Rows deleted per transaction by `prune`. */
const PRUNE_CHUNK = 10_000;

/** Rows kept while the trail cannot be written, at most; beyond, the oldest are dropped (and counted). */
const MAX_UNWRITTEN = 10_000;

interface AuditLogOptions {
  /** Rows per transaction (default 512). */
  batchSize?: number;
  /** Told when writing fails after writing worked (the disk is full, say): once per such spell. */
  onFailure?: (error: unknown) => void;
}

/**
 * The audit trail in SQLite. Rows are queued and written in one transaction per batch (on the
 * next turn of the event loop, or when the batch is full), so recording never waits on disk in
 * the middle of a call; `flush()` writes what is pending at once. A write that fails never throws
 * into whoever flushed: the rows stay queued for the next flush, `onFailure` hears it, and
 * `unwritable()` says why until a flush works again, so the engine runs no call it cannot record.
 */
export class AuditLog {
  private readonly open: () => Db;
  private opened:
    { db: Db; insert: Statement<unknown[]>; writeBatch: (rows: AuditRow[]) => void } | undefined;
  private pending: AuditRow[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly batchSize: number;
  private readonly onFailure: ((error: unknown) => void) | undefined;
  /** Why the last write failed, until one works again. */
  private failure: { error: unknown } | undefined;
  /** Rows dropped since writing began to fail (beyond MAX_UNWRITTEN). */
  private droppedRows = 0;

  /**
   * `database`: the database, or how to open it on first use (its failing to open, on a full
   * disk, then counts as a failed write: rows stay queued and the next flush opens it again).
   */
  constructor(database: Db | (() => Db), options: AuditLogOptions = {}) {
    this.open = typeof database === "function" ? database : () => database;
    this.batchSize = options.batchSize ?? 512;
    this.onFailure = options.onFailure;
  }

  private get db(): Db {
    return this.writer().db;
  }

  private writer(): NonNullable<AuditLog["opened"]> {
    if (this.opened) return this.opened;
    const db = this.open();
    const insert = db.prepare(
      `INSERT INTO audit (${COLUMNS}) VALUES (${COLUMNS.split(",")
        .map(() => "?")
        .join(", ")})`,
    );
    const writeBatch = writeTransaction(db, (rows: AuditRow[]) => {
      for (const r of rows) this.insertOne(insert, r);
    });
    this.opened = { db, insert, writeBatch };
    return this.opened;
  }

  private insertOne(insert: Statement<unknown[]>, r: AuditRow): void {
    insert.run(
      r.callId,
      r.sessionId,
      r.root,
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
    const { db, insert } = this.writer();
    writeTransaction(db, () => this.insertOne(insert, row))();
  }

  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    try {
      this.writer().writeBatch(rows);
      this.failure = undefined;
      this.droppedRows = 0;
    } catch (error) {
      this.pending = rows.concat(this.pending);
      const excess = this.pending.length - MAX_UNWRITTEN;
      if (excess > 0) {
        this.pending.splice(0, excess);
        this.droppedRows += excess;
      }
      this.failed(error);
    }
  }

  private failed(error: unknown): void {
    const first = this.failure === undefined;
    this.failure = { error };
    if (first) this.onFailure?.(error);
  }

  /**
   * Why calls cannot be recorded now, or undefined. The database is opened here if it is not yet
   * (so a call is not run when it cannot be); after a failed write, the queued rows are tried
   * again first (the disk may have been freed meanwhile).
   */
  unwritable(): { error: unknown } | undefined {
    if (!this.opened) {
      try {
        this.writer();
      } catch (error) {
        this.failed(error);
        return this.failure;
      }
    }
    if (this.failure && this.pending.length > 0) this.flush();
    else this.failure = undefined; // it opens now, and nothing waits to be written
    return this.failure;
  }

  /** How many calls are not in the trail: queued while writing fails, or dropped meanwhile. */
  unwritten(): number {
    return this.pending.length + this.droppedRows;
  }

  /** The newest rows that match, returned oldest first. */
  query(filter: AuditFilter = {}): AuditEntry[] {
    this.flush();
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.root !== undefined) {
      where.push("root = ?");
      params.push(filter.root);
    }
    if (filter.sessionId !== undefined) {
      where.push("session_id = ?");
      params.push(filter.sessionId);
    }
    if (filter.toolId !== undefined) {
      where.push("tool_id = ?");
      params.push(filter.toolId);
    }
    if (filter.outcome === "output") where.push("outcome = 'output'");
    if (filter.outcome === "error") where.push(`outcome = 'error' AND NOT ${DENIED}`);
    // A refused call's envelope is an error: only errors are looked at, through their own index.
    if (filter.outcome === "denied") where.push(`outcome = 'error' AND ${DENIED}`);
    if (filter.since !== undefined) {
      where.push("started_at >= ?");
      params.push(filter.since);
    }
    if (filter.until !== undefined) {
      where.push("started_at < ?");
      params.push(filter.until);
    }
    if (filter.beforeId !== undefined) {
      where.push("id < ?");
      params.push(filter.beforeId);
    }
    params.push(filter.limit ?? 1000);
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    return (
      this.db
        .prepare(`SELECT ${SELECTED} FROM audit ${clause} ORDER BY id DESC LIMIT ?`)
        .all(...params) as AuditEntry[]
    ).reverse();
  }

  /**
   * Delete the rows of calls that started before `before` (milliseconds since the epoch): of
   * `root`'s calls when given, else of every folder's, including the rows from before the folder
   * was recorded. Deleted PRUNE_CHUNK rows per transaction, the oldest first, so that another
   * Lathe recording its calls meanwhile waits for one chunk, never for the whole trail. Returns
   * how many rows went.
   */
  prune({ before, root }: { before: number; root?: string }): number {
    this.flush();
    const scope = root === undefined ? "" : "AND root = ?";
    const params: unknown[] = root === undefined ? [before] : [before, root];
    const chunk = writeTransaction(this.db, () => {
      const ids = this.db
        .prepare(`SELECT id FROM audit WHERE started_at < ? ${scope} ORDER BY id LIMIT ${PRUNE_CHUNK}`)
        .pluck()
        .all(...params) as number[];
      if (ids.length === 0) return 0;
      return this.db
        .prepare(`DELETE FROM audit WHERE id IN (SELECT value FROM json_each(?)) AND started_at < ? ${scope}`)
        .run(JSON.stringify(ids), ...params).changes;
    });
    let removed = 0;
    for (let n = chunk(); n > 0; n = chunk()) removed += n;
    return removed;
  }

  /**
   * The sessions (up to 500, by their latest call) and tools (seen in the latest 10,000 calls)
   * the trail names, for a view's filters: those of `root`'s calls when given (as `query`'s
   * filter), else of every folder's.
   */
  facets(root?: string): AuditFacets {
    this.flush();
    const where = root !== undefined ? "WHERE root = ?" : "";
    const params = root !== undefined ? [root] : [];
    const sessions = this.db
      .prepare(
        `SELECT session_id AS id FROM audit ${where} GROUP BY session_id ORDER BY max(id) DESC LIMIT 500`,
      )
      .all(...params) as Array<{ id: string }>;
    const tools = this.db
      .prepare(
        `SELECT tool_id AS id FROM (SELECT id, tool_id FROM audit ${where} ORDER BY id DESC LIMIT 10000) GROUP BY tool_id ORDER BY max(id) DESC`,
      )
      .all(...params) as Array<{ id: string }>;
    return { sessions: sessions.map((r) => r.id), tools: tools.map((r) => r.id) };
  }
}
