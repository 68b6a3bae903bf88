import path from "node:path";
import { openDatabase } from "../../src/main/engine/store/database.ts";

/**
 * A session row as a Lathe from before gguf: paths were kept absolute wrote it, in the real
 * database file of `latheHome`: the session `id` in `root`, its conversation on `model`.
 */
export function writeOldSession(latheHome: string, id: string, root: string, model: string): void {
  const db = openDatabase(path.join(latheHome, "lathe.db"));
  try {
    const now = Date.now();
    db.prepare("INSERT INTO sessions (id, root, created_at) VALUES (?, ?, ?)").run(id, root, now);
    db.prepare(
      "INSERT INTO conversations (session_id, agent, model, parent_session_id, created_at, updated_at) VALUES (?, 'default', ?, NULL, ?, ?)",
    ).run(id, model, now, now);
  } finally {
    db.close();
  }
}
