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
