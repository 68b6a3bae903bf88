import { newTabId } from "../../shared/tab-id.ts";
import type { RunOwners } from "./run-owners.ts";

/** A connection as the tab registry sees it. */
export interface TabHolder {
  /**
   * Whether this connection still reaches a live page: asked when another connection presents its
   * tab id. A page reloading has closed its connection, but its close may not have reached the
   * host yet; an answer of false (or a connection that cannot answer) hands the id to the newcomer.
   */
  alive(): Promise<boolean>;
}

/**
 * Which tab each UI connection of a host is, by the id the page keeps for its tab (see
 * tab-id.ts), and so whose runs it has (RunOwners). A connection presenting an id nobody holds,
 * or one whose holder is gone (a reload whose old connection's close arrives after the new one),
 * is that tab: its runs are its own again at once. One presenting an id a live connection holds
 * (a duplicated tab), or none, is a new tab with a fresh id. A connection that leaves lets its
 * tab's runs wait the grace for it; one that was displaced leaves nothing.
 */
export class LiveTabs {
  private readonly owners: RunOwners;
  private readonly held = new Map<string, TabHolder>();

  constructor(owners: RunOwners) {
    this.owners = owners;
  }

  /** `holder` connected presenting `presented`: resolves to the tab id it goes by from now on. */
  async claim(holder: TabHolder, presented: string | undefined): Promise<string> {
    if (presented !== undefined) {
      const current = this.held.get(presented);
      if (current === undefined || current === holder) return this.take(presented, holder);
      const alive = await current.alive().catch(() => false);
      // Another newcomer may have taken it while the holder was asked.
      if (!alive && this.held.get(presented) === current) return this.take(presented, holder);
    }
    let fresh = newTabId();
    while (this.held.has(fresh)) fresh = newTabId();
    return this.take(fresh, holder);
  }

  /** `holder` went away: if it still is tab `tab`, that tab's runs wait the grace for it. */
  release(holder: TabHolder, tab: string): void {
    if (this.held.get(tab) !== holder) return;
    this.held.delete(tab);
    this.owners.leave(tab);
  }

  private take(tab: string, holder: TabHolder): string {
    this.held.set(tab, holder);
    this.owners.arrive(tab);
    return tab;
  }
}
