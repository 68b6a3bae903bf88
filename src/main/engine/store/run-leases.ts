import { randomBytes } from "node:crypto";
import os from "node:os";
import { type Db, writeTransaction } from "./database.ts";
import {
  HEARTBEAT_TIMING,
  HeldRow,
  type HeartbeatTiming,
  type HeldRowRecord,
  holderOf,
  type RowHolder,
  rowLive,
} from "./held-row.ts";

/** Who is running an agent in a session: a process, on a machine, since when. */
export type LeaseHolder = RowHolder;

export type RunLeaseTiming = HeartbeatTiming;

/** The tokens of the leases this process holds now, whatever engine or database they are in. */
const heldHere = new Set<string>();

/** A session's run lease, held until `release()`; it renews itself while held. */
export class RunLease {
  readonly sessionId: string;
  private readonly row: HeldRow;

  constructor(
    db: Db,
    sessionId: string,
    token: string,
    heartbeatMs: number,
    onError: (err: unknown) => void,
  ) {
    this.sessionId = sessionId;
    this.row = new HeldRow({
      token,
      heldHere,
      heartbeatMs,
      renew: () =>
        db
          .prepare("UPDATE run_leases SET heartbeat_at = ? WHERE session_id = ? AND token = ?")
          .run(Date.now(), sessionId, token),
      remove: () =>
        db.prepare("DELETE FROM run_leases WHERE session_id = ? AND token = ?").run(sessionId, token),
      onError,
    });
  }

  /** Let the session go: another run may take it at once. */
  release(): void {
    this.row.letGo();
  }
}

/**
 * Which process is running an agent in which session, shared by every Lathe process on one
 * LATHE_HOME. Two runs appending to one conversation at once would interleave it (and one of
 * them could no longer save it), so a run takes its session's lease first, and a second run,
 * a rewind or a delete is refused while a live process holds it. A lease whose process is gone
 * (killed, on this machine) or has not renewed it within `staleMs` (a hung process, or one on
 * another machine sharing the folder) is taken over.
 */
export class RunLeases {
  private readonly host = os.hostname();
  private readonly db: Db;
  private readonly timing: RunLeaseTiming;

  constructor(db: Db, timing: RunLeaseTiming = HEARTBEAT_TIMING) {
    this.db = db;
    this.timing = timing;
  }

  /** The live holder of the session's lease, if any. */
  holder(sessionId: string): LeaseHolder | undefined {
    const row = this.row(sessionId);
    return row && this.live(row) ? holderOf(row) : undefined;
  }

  /**
   * Take the session's lease for a run, unless a live process holds it: then who does.
   * `onError` hears a renewal that failed (the lease then ages towards being taken over).
   */
  acquire(
    sessionId: string,
    onError: (err: unknown) => void,
  ): { lease: RunLease; holder?: undefined } | { lease?: undefined; holder: LeaseHolder } {
    const token = randomBytes(8).toString("hex");
    const held = writeTransaction(this.db, (): HeldRowRecord | undefined => {
      const row = this.row(sessionId);
      if (row && this.live(row)) return row;
      const now = Date.now();
      this.db
        .prepare(
          `INSERT INTO run_leases (session_id, token, pid, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
             started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
        )
        .run(sessionId, token, process.pid, this.host, now, now);
      return undefined;
    })();
    if (held) return { holder: holderOf(held) };
    return { lease: new RunLease(this.db, sessionId, token, this.timing.heartbeatMs, onError) };
  }

  /** Whether a holder is this very process. */
  isThisProcess(holder: LeaseHolder): boolean {
    return holder.host === this.host && holder.pid === process.pid;
  }

  private row(sessionId: string): HeldRowRecord | undefined {
    return this.db
      .prepare(
        "SELECT token, pid, host, started_at AS startedAt, heartbeat_at AS heartbeatAt FROM run_leases WHERE session_id = ?",
      )
      .get(sessionId) as HeldRowRecord | undefined;
  }

  private live(row: HeldRowRecord): boolean {
    return rowLive(row, this.host, heldHere, this.timing);
  }
}
