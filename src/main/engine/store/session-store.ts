import type { SessionPersistence } from "../session/session-state.ts";
import type { FileStamp } from "../tools/tool-session.ts";
import { type Db, writeTransaction } from "./database.ts";

interface StoredSession {
  id: string;
  root: string;
  createdAt: number;
  closedAt: number | null;
}

/** Sessions and their read-state in SQLite, so `lathe call --session ID` carries over. */
export class SessionStore {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  get(id: string): StoredSession | undefined {
    const row = this.db
      .prepare("SELECT id, root, created_at AS createdAt, closed_at AS closedAt FROM sessions WHERE id = ?")
      .get(id) as StoredSession | undefined;
    return row;
  }

  /**
   * The ids of this folder's sessions that start with `prefix` (but are not it), at most `limit`
   * in id order: what a person who typed part of an id may have meant.
   */
  idsStartingWith(prefix: string, root: string, limit = 5): string[] {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.db
      .prepare(
        "SELECT id FROM sessions WHERE root = ? AND id LIKE ? ESCAPE '\\' AND id <> ? ORDER BY id LIMIT ?",
      )
      .all(root, pattern, prefix, limit) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  create(id: string, root: string): StoredSession {
    const createdAt = Date.now();
    this.db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, ?)").run(id, root, createdAt);
    return { id, root, createdAt, closedAt: null };
  }

  /** Start a closed session afresh under the same id (its state was dropped when it closed). */
  reopen(id: string, root: string): void {
    this.db.prepare("UPDATE sessions SET root = ?, closed_at = NULL WHERE id = ?").run(root, id);
  }

  /** Mark closed and drop the state that only lived for the session. */
  close(id: string): void {
    writeTransaction(this.db, () => {
      this.db.prepare("UPDATE sessions SET closed_at = ? WHERE id = ?").run(Date.now(), id);
      this.db.prepare("DELETE FROM read_state WHERE session_id = ?").run(id);
      this.db.prepare("DELETE FROM approvals WHERE session_id = ?").run(id);
    })();
  }

  /** Delete the session and everything that cascades from it (conversation, checkpoints, todos); false when there was none. */
  delete(id: string): boolean {
    return this.db.prepare("DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
  }

  /** Forget what the session has read: its writes then need a fresh read first. */
  forgetReads(id: string): void {
    this.db.prepare("DELETE FROM read_state WHERE session_id = ?").run(id);
  }

  reads(id: string): Map<string, FileStamp> {
    const rows = this.db
      .prepare("SELECT path, size, mtime_ms AS mtimeMs, sha256 FROM read_state WHERE session_id = ?")
      .all(id) as Array<FileStamp & { path: string }>;
    return new Map(rows.map(({ path, ...stamp }) => [path, stamp]));
  }

  persistence(id: string): SessionPersistence {
    const upsert = this.db.prepare(
      `INSERT INTO read_state (session_id, path, size, mtime_ms, sha256) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256`,
    );
    return {
      recordRead: (path, stamp) => {
        upsert.run(id, path, stamp.size, stamp.mtimeMs, stamp.sha256);
      },
    };
  }
}
