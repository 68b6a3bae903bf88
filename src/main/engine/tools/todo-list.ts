export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
type TodoStatus = (typeof TODO_STATUSES)[number];

/** One entry of a session's todo list. */
export interface TodoItem {
  content: string;
  status: TodoStatus;
}

/** One session's todo list, as the todo tool reaches it (`runtime.session.todos`). */
export interface TodoList {
  /** The list, in order; empty when there is none. */
  get(): TodoItem[];
  /** Replace the whole list (hosts are told). */
  replace(todos: readonly TodoItem[]): void;
}
