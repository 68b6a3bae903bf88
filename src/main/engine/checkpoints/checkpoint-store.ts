import { type Db, writeTransaction } from "../store/database.ts";
import type { BlobHash } from "./blob-store.ts";

/** What a checkpoint entry is about: a file, or a folder the change created. */
export type EntryType = "file" | "folder";

/**
 * A path on one side of a change: absent, or present with its content's hash (`null` when the
 * content was not kept, e.g. a file above the size limit; the entry's note says why) and, for a
 * file, its permission bits when they were recorded (a checkpoint older than the record of the
 * bits a change left has none on its `after` side: only its content is compared then).
 */
export type PathState =
  | { exists: false }
  | {
      exists: true;
      hash: BlobHash | null;
      mode?: number;
      /**
       * The path was a folder on this side (its hash is null): set in a file's entry whose path a
       * change turned from a file into a folder or back (`rm f && mkdir f`), so a restore knows
       * to bring back a folder, not content it never had.
       */
      folder?: true;
    };

/**
 * How a folder side is stored: its mode column holds the file-type bits of a folder (S_IFDIR),
 * which a file's recorded mode never has (only its permission bits are kept), so no column is
 * added and an older Lathe reads it as a mode that differs.
 */
const FOLDER_MODE = 0o040000;
const FILE_TYPE_BITS = 0o170000;

export interface CheckpointEntry {
  /** POSIX path relative to the checkpoint's root. */
  path: string;
  type: EntryType;
  before: PathState;
  after: PathState;
  /** Why something about this entry is limited, e.g. its previous content was not kept. */
  note?: string;
}

/** `tool`: a call changed files; `restore` / `rewind`: the state a restore replaced, so it can be undone. */
export type CheckpointKind = "tool" | "restore" | "rewind";

export interface Checkpoint {
  id: number;
  sessionId: string;
  /** The workspace folder the entries' paths are relative to. */
  root: string;
  kind: CheckpointKind;
  /** The tool whose call made it (`write`, `edit`, `bash`, …), or `restore` / `rewind`. */
  tool: string;
  /** The engine's call id (as in the audit trail), when a tool call made it. */
  callId: string | null;
  /** The model's id of that call, when an agent made it. */
  toolCallId: string | null;
  /** The sequence number of the session's newest message when it was made (null: none yet). */
  messageSeq: number | null;
  /** The run (turn) the call belonged to: the newest message's run when it was made (null for restores). */
  runId: string | null;
  createdAt: number;
  /** The restore or rewind checkpoint that put its files back, if one did. */
  restoredBy: number | null;
  /** For restore and rewind checkpoints: the checkpoints whose changes they undid. */
  undoes: number[];
  entries: CheckpointEntry[];
}

type NewCheckpoint = Omit<Checkpoint, "id" | "createdAt" | "restoredBy" | "messageSeq" | "runId">;

interface CheckpointRow {
  id: number;
  session_id: string;
  root: string;
  kind: CheckpointKind;
  tool: string;
  call_id: string | null;
  tool_call_id: string | null;
  message_seq: number | null;
  run_id: string | null;
  created_at: number;
  restored_by: number | null;
  undoes_json: string | null;
}

interface EntryRow {
  checkpoint_id: number;
  path: string;
  type: EntryType;
  before_exists: number;
  before_hash: string | null;
  before_mode: number | null;
  after_exists: number;
  after_hash: string | null;
  /** NULL in entries recorded before the column existed (and for absent paths and folders). */
  after_mode: number | null;
  note: string | null;
}

function stateOf(exists: number, hash: string | null, mode: number | null): PathState {
  if (!exists) return { exists: false };
  if (mode !== null && (mode & FILE_TYPE_BITS) === FOLDER_MODE)
    return { exists: true, hash: null, folder: true };
  return mode === null ? { exists: true, hash } : { exists: true, hash, mode };
}

/** The mode column of a side: a folder's type bits, a file's permission bits, or NULL. */
function modeColumn(state: PathState): number | null {
  if (!state.exists) return null;
  if (state.folder) return FOLDER_MODE;
  return state.mode ?? null;
}

function entryOf(row: EntryRow): CheckpointEntry {
  return {
    path: row.path,
    type: row.type,
    before: stateOf(row.before_exists, row.before_hash, row.before_mode),
    after: stateOf(row.after_exists, row.after_hash, row.after_mode),
    ...(row.note !== null ? { note: row.note } : {}),
  };
}

function checkpointOf(row: CheckpointRow, entries: CheckpointEntry[]): Checkpoint {
  return {
    id: row.id,
    sessionId: row.session_id,
    root: row.root,
    kind: row.kind,
    tool: row.tool,
    callId: row.call_id,
    toolCallId: row.tool_call_id,
    messageSeq: row.message_seq,
    runId: row.run_id,
    createdAt: row.created_at,
    restoredBy: row.restored_by,
    undoes: row.undoes_json === null ? [] : (JSON.parse(row.undoes_json) as number[]),
    entries,
  };
}

/** Checkpoint rows with their entry rows (each checkpoint's in the order they came). */
function withEntries(rows: CheckpointRow[], entries: EntryRow[]): Checkpoint[] {
  const byCheckpoint = new Map<number, CheckpointEntry[]>();
  for (const row of entries) {
    const list = byCheckpoint.get(row.checkpoint_id) ?? [];
    list.push(entryOf(row));
    byCheckpoint.set(row.checkpoint_id, list);
  }
  return rows.map((row) => checkpointOf(row, byCheckpoint.get(row.id) ?? []));
}

/**
 * Checkpoint records in SQLite, beside the session they belong to (deleting the session deletes
 * them): which call made each, when, where in the conversation, and for every path it changed
 * the state before and after. The contents themselves are blobs (blob-store.ts).
 */
export class CheckpointStore {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /** Record a checkpoint (in one transaction), placed after the session's newest message. */
  record(checkpoint: NewCheckpoint): Checkpoint {
    const insertEntry = this.db.prepare(
      `INSERT INTO checkpoint_entries
         (checkpoint_id, path, type, before_exists, before_hash, before_mode, after_exists, after_hash, after_mode, note)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return writeTransaction(this.db, (): Checkpoint => {
      const newest = this.newestMessage(checkpoint.sessionId);
      const messageSeq = newest?.seq ?? null;
      const runId = checkpoint.kind === "tool" ? (newest?.runId ?? null) : null;
      const createdAt = Date.now();
      const id = Number(
        this.db
          .prepare(
            `INSERT INTO checkpoints
               (session_id, root, kind, tool, call_id, tool_call_id, message_seq, run_id, created_at, undoes_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            checkpoint.sessionId,
            checkpoint.root,
            checkpoint.kind,
            checkpoint.tool,
            checkpoint.callId,
            checkpoint.toolCallId,
            messageSeq,
            runId,
            createdAt,
            checkpoint.undoes.length > 0 ? JSON.stringify(checkpoint.undoes) : null,
          ).lastInsertRowid,
      );
      for (const e of checkpoint.entries) {
        insertEntry.run(
          id,
          e.path,
          e.type,
          e.before.exists ? 1 : 0,
          e.before.exists ? e.before.hash : null,
          modeColumn(e.before),
          e.after.exists ? 1 : 0,
          e.after.exists ? e.after.hash : null,
          modeColumn(e.after),
          e.note ?? null,
        );
      }
      return { ...checkpoint, id, createdAt, messageSeq, runId, restoredBy: null };
    })();
  }

  /** The session's newest message (its sequence number and run), or undefined when it has none. */
  private newestMessage(sessionId: string): { seq: number; runId: string } | undefined {
    return this.db
      .prepare("SELECT seq, run_id AS runId FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1")
      .get(sessionId) as { seq: number; runId: string } | undefined;
  }

  get(id: number): Checkpoint | undefined {
    const row = this.db.prepare("SELECT * FROM checkpoints WHERE id = ?").get(id) as
      CheckpointRow | undefined;
    if (!row) return undefined;
    const entries = this.db
      .prepare("SELECT * FROM checkpoint_entries WHERE checkpoint_id = ? ORDER BY path")
      .all(id) as EntryRow[];
    return checkpointOf(row, entries.map(entryOf));
  }

  /** A session's checkpoints, oldest first (optionally only those placed at or after a message). */
  list(sessionId: string, fromMessageSeq?: number): Checkpoint[] {
    const where = fromMessageSeq === undefined ? "" : " AND message_seq >= ?";
    const params = fromMessageSeq === undefined ? [sessionId] : [sessionId, fromMessageSeq];
    const rows = this.db
      .prepare(`SELECT * FROM checkpoints WHERE session_id = ?${where} ORDER BY id`)
      .all(...params) as CheckpointRow[];
    if (rows.length === 0) return [];
    const entries = this.db
      .prepare(
        `SELECT e.* FROM checkpoint_entries e JOIN checkpoints c ON c.id = e.checkpoint_id
         WHERE c.session_id = ?${where.replace("message_seq", "c.message_seq")} ORDER BY e.checkpoint_id, e.path`,
      )
      .all(...params) as EntryRow[];
    return withEntries(rows, entries);
  }

  /** The id of the newest checkpoint of any session (0 when there is none). */
  newestId(): number {
    return (this.db.prepare("SELECT MAX(id) AS id FROM checkpoints").get() as { id: number | null }).id ?? 0;
  }

  /**
   * The entries that checkpoints of other sessions than `sessionId` in `root` recorded after
   * checkpoint `afterId`, oldest first: what other calls changed meanwhile (another chat, or
   * another Lathe process on the same folder).
   */
  othersSince(afterId: number, root: string, sessionId: string): CheckpointEntry[] {
    const rows = this.db
      .prepare(
        `SELECT e.* FROM checkpoint_entries e JOIN checkpoints c ON c.id = e.checkpoint_id
         WHERE c.id > ? AND c.root = ? AND c.session_id <> ? ORDER BY c.id, e.path`,
      )
      .all(afterId, root, sessionId) as EntryRow[];
    return rows.map(entryOf);
  }

  /**
   * The checkpoints other sessions than `sessionIds` recorded in `root` after checkpoint
   * `afterId` and did not restore since, oldest first: who else changed the folder's files
   * (another chat, another Lathe process), to name them when a restore finds a file changed.
   */
  othersAfter(afterId: number, root: string, sessionIds: readonly string[]): Checkpoint[] {
    const mine = sessionIds.map(() => "?").join(", ");
    const where = `c.id > ? AND c.root = ? AND c.restored_by IS NULL AND c.session_id NOT IN (${mine})`;
    const params = [afterId, root, ...sessionIds];
    const rows = this.db
      .prepare(`SELECT * FROM checkpoints c WHERE ${where} ORDER BY c.id`)
      .all(...params) as CheckpointRow[];
    if (rows.length === 0) return [];
    const entries = this.db
      .prepare(
        `SELECT e.* FROM checkpoint_entries e JOIN checkpoints c ON c.id = e.checkpoint_id
         WHERE ${where} ORDER BY e.checkpoint_id, e.path`,
      )
      .all(...params) as EntryRow[];
    return withEntries(rows, entries);
  }

  /** Note that `by` (a restore or rewind checkpoint) put these checkpoints' files back. */
  markRestored(ids: readonly number[], by: number): void {
    const mark = this.db.prepare("UPDATE checkpoints SET restored_by = ? WHERE id = ?");
    writeTransaction(this.db, () => {
      for (const id of ids) mark.run(by, id);
    })();
  }

  /** Undoing a restore brings these checkpoints' changes back: they are live again. */
  clearRestored(ids: readonly number[]): void {
    const clear = this.db.prepare("UPDATE checkpoints SET restored_by = NULL WHERE id = ?");
    writeTransaction(this.db, () => {
      for (const id of ids) clear.run(id);
    })();
  }
}
