import type { PushFrame } from "../../shared/push-events.ts";
import type { BackgroundTask } from "../../shared/task-schemas.ts";
import type { Engine } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";

/**
 * The background tasks of a host's chats, on whichever of its engines they run (a task goes on
 * on the engine it started on after the host moved to a new one): every UI is told when one
 * starts or ends, sees a session's list when it opens it, and can stop one. A task may outlive
 * the run that started it, so this is the only place a person can still reach it.
 */
export class LiveTasks {
  private readonly engines = new Map<Engine, () => void>();
  private readonly broadcast: (frame: PushFrame) => void;

  constructor(broadcast: (frame: PushFrame) => void) {
    this.broadcast = broadcast;
  }

  /** Follow an engine's tasks from now on (until `unwatch`). */
  watch(engine: Engine): void {
    if (this.engines.has(engine)) return;
    // The chat that started them is told, and so is each task's own session (a UI may have it open).
    const onChange = ({ sessionId }: { sessionId: string }): void => {
      const tasks = this.inSession(sessionId);
      this.broadcast({ event: "tasks.changed", payload: { sessionId, tasks } });
      for (const task of tasks) {
        this.broadcast({
          event: "tasks.changed",
          payload: { sessionId: task.taskId, tasks: this.inSession(task.taskId) },
        });
      }
    };
    engine.events.on("TasksChanged", onChange);
    this.engines.set(engine, () => engine.events.off("TasksChanged", onChange));
  }

  unwatch(engine: Engine): void {
    this.engines.get(engine)?.();
    this.engines.delete(engine);
  }

  /** Follow no engine any more. */
  close(): void {
    for (const engine of [...this.engines.keys()]) this.unwatch(engine);
  }

  /**
   * A session's background tasks (its tasks' too), running or ended, oldest first. For the session
   * of a background task: itself, and the tasks it started.
   */
  inSession(sessionId: string): BackgroundTask[] {
    // An engine that replaced another for the same folder holds its running tasks too: once each.
    const byId = new Map(
      [...this.engines.keys()].flatMap((engine) =>
        engine.tasks
          .background()
          .filter(
            (task) =>
              task.rootSessionId === sessionId ||
              task.taskId === sessionId ||
              task.parentSessionId === sessionId,
          )
          .map((task) => [task.taskId, task] as const),
      ),
    );
    return [...byId.values()]
      .sort((a, b) => a.startedAt - b.startedAt)
      .map((task) => ({
        taskId: task.taskId,
        parentSessionId: task.parentSessionId,
        description: task.description,
        agent: task.agent,
        startedAt: task.startedAt,
        ...(task.endedAt !== undefined ? { endedAt: task.endedAt } : {}),
        status: task.status,
      }));
  }

  /** Every background task running now, on any engine: where it works and what it is. */
  running(): Array<{ root: string; description: string }> {
    const byId = new Map(
      [...this.engines.keys()].flatMap((engine) =>
        engine.tasks
          .background()
          .filter((task) => task.status === "running")
          .map((task) => [task.taskId, { root: engine.root, description: task.description }] as const),
      ),
    );
    return [...byId.values()];
  }

  /** Stop a running background task, the tasks it started with it. */
  stop(taskId: string): { taskId: string; stopped: true } {
    for (const engine of this.engines.keys()) {
      const task = engine.tasks.get(taskId);
      if (!task?.background) continue;
      if (engine.tasks.stop(taskId, new Error("stopped by the person"))) return { taskId, stopped: true };
    }
    throw new ApiError(
      `There is no background task "${taskId}" running: it already ended, or it was never started here.`,
    );
  }
}
