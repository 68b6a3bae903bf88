import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Db } from "./database.ts";
import {
  HEARTBEAT_TIMING,
  HeldRow,
  type HeartbeatTiming,
  type HeldRowRecord,
  holderOf,
  type RowHolder,
  rowLive,
} from "./held-row.ts";

/** A process that has a persistent session open for tool calls: its pid, machine, and since when. */
export type SessionUser = RowHolder;

export type SessionUseTiming = HeartbeatTiming;

/** The tokens of the uses this process holds now, whatever engine or database they are in. */
const heldHere = new Set<string>();

/** One process's use of a session, held until `end()`; it renews itself while held. */
export class SessionUse {
  readonly token: string;
  private readonly row: HeldRow;

  constructor(db: Db, token: string, heartbeatMs: number, onError: (err: unknown) => void) {
    this.token = token;
    this.row = new HeldRow({
      token,
      heldHere,
      heartbeatMs,
      renew: () =>
        db.prepare("UPDATE session_users SET heartbeat_at = ? WHERE token = ?").run(Date.now(), token),
      remove: () => db.prepare("DELETE FROM session_users WHERE token = ?").run(token),
      onError,
    });
  }

  /** The process no longer uses the session: deleting or closing it is no longer refused for it. */
  end(): void {
    this.row.letGo();
  }
}

/**
 * Which processes have which persistent sessions open for tool calls (`lathe call --session`,
 * `lathe batch --session`, a run, the app), shared by every Lathe process on one LATHE_HOME. Many
 * may use one session at once; but deleting, closing or rewinding it under them would leave their
 * calls writing into a session that is gone, so those are refused while another live process uses
 * it. A use whose process is gone (kill -9, on this machine) or that has not been renewed within
 * `staleMs` (a hung process, or one on another machine sharing the folder) counts for nothing.
 */
export class SessionUsers {
  private readonly host = os.hostname();
  private readonly db: Db;
  private readonly timing: SessionUseTiming;

  constructor(db: Db, timing: SessionUseTiming = HEARTBEAT_TIMING) {
    this.db = db;
    this.timing = timing;
  }

  /**
   * Record that this process uses the session until the use ends. Run it in the transaction that
   * finds or creates the session, so that a delete cannot fall between them.
   * `onError` hears a renewal that failed (the use then ages towards counting for nothing).
   */
  enter(sessionId: string, onError: (err: unknown) => void): SessionUse {
    const token = randomBytes(8).toString("hex");
    const now = Date.now();
    this.db
      .prepare(
        "INSERT INTO session_users (token, session_id, pid, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(token, sessionId, process.pid, this.host, now, now);
    return new SessionUse(this.db, token, this.timing.heartbeatMs, onError);
  }

  /**
   * The earliest live user of the session other than the uses in `mine` (this engine's own, which
   * its caller tells apart), if any. Rows of users that count for nothing are removed on the way.
   */
  otherUser(sessionId: string, mine: ReadonlySet<string>): SessionUser | undefined {
    const rows = this.db
      .prepare(
        `SELECT token, pid, host, started_at AS startedAt, heartbeat_at AS heartbeatAt
         FROM session_users WHERE session_id = ? ORDER BY started_at`,
      )
      .all(sessionId) as HeldRowRecord[];
    let found: SessionUser | undefined;
    const drop = this.db.prepare("DELETE FROM session_users WHERE token = ?");
    for (const row of rows) {
      if (!this.live(row)) {
        drop.run(row.token);
        continue;
      }
      if (!mine.has(row.token)) found ??= holderOf(row);
    }
    return found;
  }

  /** Whether a user is this very process. */
  isThisProcess(user: SessionUser): boolean {
    return user.host === this.host && user.pid === process.pid;
  }

  private live(row: HeldRowRecord): boolean {
    return rowLive(row, this.host, heldHere, this.timing);
  }
}
