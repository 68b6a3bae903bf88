import type { TodoItem, TodoList } from "../tools/todo-list.ts";
import { type Db, writeTransaction } from "./database.ts";

interface TodoStoreOptions {
  /** Lathe's database (persistent sessions' lists live there); called on each use, so it may open lazily. */
  database(): Db;
  /** Told of every replacement (the engine emits `TodosChanged`), so hosts show the list live. */
  onReplaced?(sessionId: string, todos: TodoItem[]): void;
}

/**
 * Each session's todo list, replaced whole by the todo tool. A persistent session's list is in
 * SQLite (it survives a restart and is dropped when the session closes); an ephemeral session's
 * list (its id has no row in `sessions`) lives in memory until `drop`.
 */
export class TodoStore {
  private readonly options: TodoStoreOptions;
  private readonly ephemeral = new Map<string, TodoItem[]>();

  constructor(options: TodoStoreOptions) {
    this.options = options;
  }

  private persistent(db: Db, sessionId: string): boolean {
    return db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) !== undefined;
  }

  /** The session's current list, in order; empty when it has none. */
  get(sessionId: string): TodoItem[] {
    const held = this.ephemeral.get(sessionId);
    if (held) return held.map((t) => ({ ...t }));
    return this.options
      .database()
      .prepare("SELECT content, status FROM todos WHERE session_id = ? ORDER BY position")
      .all(sessionId) as TodoItem[];
  }

  /** Replace the session's whole list and tell hosts. */
  replace(sessionId: string, todos: readonly TodoItem[]): void {
    const copy = todos.map((t) => ({ content: t.content, status: t.status }));
    const db = this.options.database();
    if (this.persistent(db, sessionId)) {
      const insert = db.prepare(
        "INSERT INTO todos (session_id, position, content, status) VALUES (?, ?, ?, ?)",
      );
      writeTransaction(db, () => {
        db.prepare("DELETE FROM todos WHERE session_id = ?").run(sessionId);
        copy.forEach((t, i) => insert.run(sessionId, i, t.content, t.status));
      })();
    } else {
      this.ephemeral.set(sessionId, copy);
    }
    this.options.onReplaced?.(
      sessionId,
      copy.map((t) => ({ ...t })),
    );
  }

  /** One session's list, as its tools reach it. */
  listOf(sessionId: string): TodoList {
    return { get: () => this.get(sessionId), replace: (todos) => this.replace(sessionId, todos) };
  }

  /** Forget the session's list (when it closes for good); an ephemeral session's is only in memory. */
  drop(sessionId: string, persistent = true): void {
    if (this.ephemeral.delete(sessionId) || !persistent) return;
    this.options.database().prepare("DELETE FROM todos WHERE session_id = ?").run(sessionId);
  }
}
