import type { BackgroundTask } from "../../shared/task-schemas.ts";
import { useChat } from "../state/chat-context.tsx";
import { Elapsed, formatDuration } from "./elapsed.tsx";
import { Icon } from "./icons.tsx";

const STATUS: Record<BackgroundTask["status"], { label: string; badge: string }> = {
  running: { label: "running", badge: "badge badge-running" },
  completed: { label: "done", badge: "badge badge-output" },
  "max-rounds": { label: "out of steps", badge: "badge badge-error" },
  aborted: { label: "stopped", badge: "badge badge-muted" },
  failed: { label: "failed", badge: "badge badge-error" },
  interrupted: { label: "interrupted", badge: "badge badge-muted" },
};

function TaskRow({ task }: { task: BackgroundTask }) {
  const stopping = useChat((s) => s.stoppingTasks.includes(task.taskId));
  const stopTask = useChat((s) => s.stopTask);
  const running = task.status === "running";
  const status = STATUS[task.status];
  return (
    <li className={`task-item task-${task.status}`} aria-label={`Task ${task.description}: ${status.label}`}>
      <div className="task-head">
        <span className={status.badge}>{status.label}</span>
        <span className="task-agent muted">{task.agent}</span>
        {running ? (
          <Elapsed since={task.startedAt} />
        ) : (
          <span className="muted tool-card-time" aria-label="Ran for">
            {formatDuration((task.endedAt ?? task.startedAt) - task.startedAt)}
          </span>
        )}
      </div>
      <div className="task-description">{task.description}</div>
      {running ? (
        <button
          type="button"
          className="tool-card-stop task-stop"
          disabled={stopping}
          onClick={() => void stopTask(task.taskId)}
          aria-label={`Stop task ${task.description}`}
          title="Stop this task, its commands and the tasks it started"
        >
          <Icon name="stop" size={12} />
          {stopping ? "Stopping…" : "Stop"}
        </button>
      ) : null}
    </li>
  );
}

/**
 * The session's background tasks, live: a task may go on after the run that started it, so this
 * is where the person sees it working (its agent, label and running time) and stops it.
 */
export function TasksPanel() {
  const tasks = useChat((s) => s.tasks);
  const running = tasks.filter((task) => task.status === "running").length;
  return (
    <section className="panel tasks-panel" aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">
        Background tasks{running > 0 ? <span className="muted"> · {running} running</span> : null}
      </h2>
      <ol className="task-list" aria-label="Background tasks">
        {tasks.map((task) => (
          <TaskRow key={task.taskId} task={task} />
        ))}
      </ol>
    </section>
  );
}
