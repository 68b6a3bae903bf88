import type { Engine } from "../engine.ts";
import type { TaskResult } from "../tools/task-host.ts";
import { storedTaskResult } from "./task-report.ts";

/** Whether a tool edits files (what a task report counts among its artifacts). */
export function editsFiles(engine: Engine): (toolId: string) => boolean {
  return (toolId) => engine.registry.get(toolId)?.tool.kind === "edit";
}

/**
 * Where a task (a child session started by `task`) stands: live for a task this engine is
 * running; `running` with where, for one another Lathe process runs (it holds the child's run
 * lease); else from its recorded events (`interrupted` when it never finished). Undefined when
 * `taskId` is no task. Hosts list a session's tasks with `engine.conversations().children(id)`.
 */
export function taskStatus(engine: Engine, taskId: string): TaskResult | undefined {
  const entry = engine.tasks.get(taskId);
  if (entry) return entry.result ?? { task_id: taskId, status: "running" };
  const stored = storedTaskResult(engine.conversations(), taskId, editsFiles(engine));
  if (stored?.status !== "interrupted") return stored;
  const where = engine.runHolder(taskId);
  if (where === undefined) return stored;
  return {
    task_id: taskId,
    status: "running",
    error: `The task is still running ${where}, so its result cannot be awaited from here. Collect it again later (task with task_id "${taskId}"), or go on without it.`,
  };
}

/**
 * Resolves once every task started on this engine has stopped (background tasks go on after the
 * run that started them; a host waits here before it closes the engine). Abort the run's signal
 * to stop them; `signal` here only ends the wait.
 */
export async function settleTasks(engine: Engine, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  let stopWaiting: (() => void) | undefined;
  const ended = new Promise<void>((resolve) => {
    stopWaiting = () => resolve();
    signal?.addEventListener("abort", stopWaiting, { once: true });
  });
  try {
    await Promise.race([engine.tasks.settled(), ended]);
  } finally {
    if (stopWaiting) signal?.removeEventListener("abort", stopWaiting);
  }
}
