import { ConversationStore } from "../store/conversation-store.ts";
import { openDatabase } from "../store/database.ts";
import { SessionStore } from "../store/session-store.ts";

/** Where a run that is not saved keeps its conversation while it runs. */
export interface UnsavedConversation {
  store: ConversationStore;
  /** Drop it all (the run is over). */
  close(): void;
}

/**
 * A conversation store in memory for a run in a session that is not saved (`persist: false`):
 * the run's steps are written there as a saved run's are to the database, so a compaction can
 * read and summarise them; nothing reaches the database on disk, and it is gone once closed.
 */
export function unsavedConversation(sessionId: string, root: string): UnsavedConversation {
  const db = openDatabase(":memory:");
  new SessionStore(db).create(sessionId, root);
  return { store: new ConversationStore(db), close: () => db.close() };
}
