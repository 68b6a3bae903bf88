import { processStillHolds } from "./process-holder.ts";

/** A process holding a row (a run lease, a session's use): its pid, machine, and since when. */
export interface RowHolder {
  pid: number;
  host: string;
  startedAt: number;
}

/** A held row as its table stores it. */
export interface HeldRowRecord extends RowHolder {
  token: string;
  heartbeatAt: number;
}

export interface HeartbeatTiming {
  /** How often a held row records that its process is still there. */
  heartbeatMs: number;
  /** How long after its last heartbeat a row counts as abandoned (its process hung or gone). */
  staleMs: number;
}

/** Renewed every 15 s; a row not renewed for a minute counts for nothing. */
export const HEARTBEAT_TIMING: HeartbeatTiming = { heartbeatMs: 15_000, staleMs: 60_000 };

/**
 * Whether a stored row still counts: renewed within `staleMs`, and its process still holds it (see
 * processStillHolds: `heldHere` is this process's holdings of that table).
 */
export function rowLive(
  row: HeldRowRecord,
  host: string,
  heldHere: ReadonlySet<string>,
  timing: HeartbeatTiming,
): boolean {
  if (Date.now() - row.heartbeatAt > timing.staleMs) return false;
  return processStillHolds(row, host, heldHere);
}

/** The holder a row names. */
export function holderOf(row: RowHolder): RowHolder {
  return { pid: row.pid, host: row.host, startedAt: row.startedAt };
}

/** How a held row is renewed and removed, and whose holdings it counts among. */
export interface HeldRowOptions {
  /** The row's token, kept in `heldHere` while held. */
  token: string;
  /** This process's holdings of the row's table (see process-holder.ts). */
  heldHere: Set<string>;
  heartbeatMs: number;
  /** Record that the holder is still there (the row's heartbeat). */
  renew(): void;
  /** Delete the row. */
  remove(): void;
  /** Hears a renewal that failed: the row then ages towards counting for nothing. */
  onError(err: unknown): void;
}

/**
 * A row this process holds in a table every Lathe process on one LATHE_HOME shares (a run lease,
 * a session's use): renewed every `heartbeatMs` while held, so other processes tell a live holder
 * from one that hung, and deleted when let go. Its token is forgotten first: should the delete
 * fail, the row counts as left over (its process no longer holds it) and is taken over.
 */
export class HeldRow {
  private readonly options: HeldRowOptions;
  private readonly timer: NodeJS.Timeout;
  private held = true;

  constructor(options: HeldRowOptions) {
    this.options = options;
    options.heldHere.add(options.token);
    this.timer = setInterval(() => {
      try {
        options.renew();
      } catch (err) {
        options.onError(err);
      }
    }, options.heartbeatMs);
    this.timer.unref();
  }

  /** Stop renewing the row and delete it; later calls do nothing. */
  letGo(): void {
    if (!this.held) return;
    this.held = false;
    this.options.heldHere.delete(this.options.token);
    clearInterval(this.timer);
    this.options.remove();
  }
}
