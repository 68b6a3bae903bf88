import { type Db, writeTransaction } from "./database.ts";

/**
 * The messages an older Lathe recorded before the text index existed (migration 12): every
 * message whose id is below `message_text_backlog.below` is not indexed yet. They are indexed a
 * chunk at a time, newest first (the ones a person most likely looks for), each chunk its own
 * short transaction: indexing 80,000 messages at once holds the write lock for many seconds,
 * longer than another Lathe process waits for it (database.ts), and a synchronous open would
 * freeze the app's window meanwhile. Until the backlog is gone, a search looks at its messages
 * with LIKE (session-catalog.ts), so it finds the same sessions at every stage.
 */

/** Messages indexed per transaction: a fraction of a second of work even on a slow disk. */
export const BACKLOG_CHUNK = 250;

/** The id below which messages are not indexed yet, or undefined when every message is. */
export function unindexedBelow(db: Db): number | undefined {
  const row = db.prepare("SELECT below FROM message_text_backlog").get() as { below: number } | undefined;
  return row?.below;
}

/**
 * Index the newest chunk of the backlog, in one transaction. Returns whether any backlog is left.
 * Safe beside another process doing the same: each chunk reads where the backlog stands under the
 * write lock, and a part indexed twice replaces itself.
 */
export function indexBacklogChunk(db: Db): boolean {
  return writeTransaction(db, (): boolean => {
    const below = unindexedBelow(db);
    if (below === undefined) return false;
    const from = Math.max(0, below - BACKLOG_CHUNK);
    db.prepare(
      `INSERT OR REPLACE INTO message_text_index (rowid, text)
       SELECT message_id * 1048576 + position, text FROM message_parts
       WHERE message_id >= ? AND message_id < ? AND type = 'text' AND text IS NOT NULL AND position < 1048576`,
    ).run(from, below);
    const older = db.prepare("SELECT 1 FROM messages WHERE id < ? LIMIT 1").get(from) !== undefined;
    if (older) db.prepare("UPDATE message_text_backlog SET below = ?").run(from);
    else db.prepare("DELETE FROM message_text_backlog").run();
    return older;
  })();
}

/**
 * Index the whole backlog in the background: one chunk per turn of the event loop, so that what
 * the process does meanwhile (a call, the app's window) waits one chunk at most. Resolves when the
 * backlog is gone or `signal` is aborted (the engine closing its database).
 */
export async function indexBacklog(db: Db, signal: AbortSignal): Promise<void> {
  // Reading where it stands takes no lock: a store with no backlog costs one read.
  if (unindexedBelow(db) === undefined) return;
  while (!signal.aborted && indexBacklogChunk(db)) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
