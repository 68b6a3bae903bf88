import { randomBytes } from "node:crypto";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { FileClaimer } from "../tools/file-claimer.ts";
import { type Db, writeTransaction } from "./database.ts";
import { processStillHolds } from "./process-holder.ts";

export interface FileClaimTiming {
  /** How long a call waits for another call to finish changing the same file before giving up. */
  waitMs: number;
  /** A claim older than this is taken to be left over, whoever holds it (a hung process). */
  staleMs: number;
}

const TIMING: FileClaimTiming = { waitMs: 15_000, staleMs: 60_000 };

interface ClaimRow {
  path: string;
  token: string;
  pid: number;
  host: string;
  claimedAt: number;
}

/** The tokens of the claims this process holds now, whatever engine or database they are in. */
const heldHere = new Set<string>();

/**
 * Which files a tool call is changing right now, shared by every Lathe process on one
 * LATHE_HOME (and every session of one process). An edit reads a file, checks it is what its
 * session read, then writes it: two such calls on one file at once, in two `lathe call`s or the
 * app and a terminal, would both pass the check and the second would overwrite the first's change
 * while both report success. A call claims its files first, so the second waits, then finds the
 * file changed and says so. A claim whose process is gone (kill -9, on this machine) or older than
 * `staleMs` is taken over.
 */
export class FileClaims implements FileClaimer {
  private readonly host = os.hostname();
  private readonly db: Db;
  private readonly timing: FileClaimTiming;

  constructor(db: Db, timing: FileClaimTiming = TIMING) {
    this.db = db;
    this.timing = timing;
  }

  /**
   * Claim every path of `paths` (canonical absolute paths) together, waiting while another call
   * holds one of them. Resolves with `release` once claimed, or with the holder when it still
   * held one after `waitMs`; rejects with the signal's reason when aborted while waiting.
   */
  async claim(paths: readonly string[], signal?: AbortSignal): ReturnType<FileClaimer["claim"]> {
    const wanted = [...new Set(paths)];
    const token = randomBytes(8).toString("hex");
    const deadline = Date.now() + this.timing.waitMs;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const holder = this.tryClaim(wanted, token);
      if (holder === undefined) {
        heldHere.add(token);
        return { release: () => this.release(token) };
      }
      if (Date.now() >= deadline)
        return { holder: { path: holder.path, pid: holder.pid, host: holder.host } };
      try {
        await sleep(Math.min(5 * attempt, 50), undefined, signal ? { signal } : {});
      } catch (err) {
        // timers/promises rejects with its own AbortError: the caller hears why it was aborted.
        throw signal?.aborted === true ? signal.reason : err;
      }
    }
  }

  /** Take every path for `token`, or none: the live row that stands in the way, if any. */
  private tryClaim(paths: readonly string[], token: string): ClaimRow | undefined {
    return writeTransaction(this.db, (): ClaimRow | undefined => {
      const find = this.db.prepare(
        "SELECT path, token, pid, host, claimed_at AS claimedAt FROM file_claims WHERE path = ?",
      );
      for (const path of paths) {
        const row = find.get(path) as ClaimRow | undefined;
        if (row && this.live(row)) return row;
      }
      const take = this.db.prepare(
        `INSERT INTO file_claims (path, token, pid, host, claimed_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (path) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
           claimed_at = excluded.claimed_at`,
      );
      const now = Date.now();
      for (const path of paths) take.run(path, token, process.pid, this.host, now);
      return undefined;
    })();
  }

  private release(token: string): void {
    // Forgotten first: should the delete fail, the rows count as left over and are taken over.
    if (!heldHere.delete(token)) return;
    this.db.prepare("DELETE FROM file_claims WHERE token = ?").run(token);
  }

  private live(row: ClaimRow): boolean {
    if (Date.now() - row.claimedAt > this.timing.staleMs) return false;
    return processStillHolds(row, this.host, heldHere);
  }
}
