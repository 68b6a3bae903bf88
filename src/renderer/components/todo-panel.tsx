import type { TodoItem } from "../../shared/chat-schemas.ts";
import { useChat } from "../state/chat-context.tsx";

const STATUS: Record<TodoItem["status"], { label: string; badge: string }> = {
  pending: { label: "pending", badge: "badge badge-muted" },
  in_progress: { label: "in progress", badge: "badge badge-running" },
  completed: { label: "completed", badge: "badge badge-output" },
};

/** The session's todo list as the agent keeps it, live. */
export function TodoPanel() {
  const todos = useChat((s) => s.todos);
  return (
    <section className="panel todo-panel" aria-labelledby="todo-heading">
      <h2 id="todo-heading">Todo</h2>
      {todos.length === 0 ? (
        <p className="muted">The agent's plan appears here when it writes one.</p>
      ) : (
        <ol className="todo-list" aria-label="Todo list">
          {todos.map((todo, index) => (
            <li key={index} className={`todo-item todo-${todo.status}`}>
              <span className={STATUS[todo.status].badge}>{STATUS[todo.status].label}</span>
              <span className="todo-content">{todo.content}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
