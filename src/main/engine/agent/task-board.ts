import type { Engine } from "../engine.ts";
import type { TaskResult } from "../session/task-host.ts";
import { storedTaskResult } from "./task-report.ts";

interface TaskEntry {
  parentSessionId: string;
  /** Resolves with the result once the child run stopped; never rejects. */
  done: Promise<TaskResult>;
  result: TaskResult | undefined;
}

/** The tasks started on one engine in this process, so results outlive the run that started them. */
class TaskBoard {
  private readonly entries = new Map<string, TaskEntry>();

  add(taskId: string, parentSessionId: string, done: Promise<TaskResult>): void {
    const entry: TaskEntry = { parentSessionId, done, result: undefined };
    this.entries.set(taskId, entry);
    void done.then((result) => (entry.result = result));
  }

  get(taskId: string): TaskEntry | undefined {
    return this.entries.get(taskId);
  }

  unfinished(): Promise<TaskResult>[] {
    return [...this.entries.values()].filter((e) => e.result === undefined).map((e) => e.done);
  }
}

const boards = new WeakMap<Engine, TaskBoard>();

export function taskBoard(engine: Engine): TaskBoard {
  let board = boards.get(engine);
  if (!board) {
    board = new TaskBoard();
    boards.set(engine, board);
  }
  return board;
}

export function editsFiles(engine: Engine): (toolId: string) => boolean {
  return (toolId) => engine.registry.get(toolId)?.tool.kind === "edit";
}

/**
 * Where a task (a child session started by `task`) stands: live for a task this engine is
 * running, else from its recorded events (`interrupted` when it never finished). Undefined when
 * `taskId` is no task. Hosts list a session's tasks with `engine.conversations().children(id)`.
 */
export function taskStatus(engine: Engine, taskId: string): TaskResult | undefined {
  const entry = taskBoard(engine).get(taskId);
  if (entry) return entry.result ?? { task_id: taskId, status: "running" };
  return storedTaskResult(engine.conversations(), taskId, editsFiles(engine));
}

/**
 * Resolves once every task started on this engine has stopped (background tasks go on after the
 * run that started them; a host waits here before it closes the engine). Abort the run's signal
 * to stop them; `signal` here only ends the wait.
 */
export async function settleTasks(engine: Engine, signal?: AbortSignal): Promise<void> {
  const board = taskBoard(engine);
  for (;;) {
    const pending = board.unfinished();
    if (pending.length === 0 || signal?.aborted) return;
    let stopWaiting: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => {
      stopWaiting = () => resolve();
      signal?.addEventListener("abort", stopWaiting, { once: true });
    });
    try {
      await Promise.race([Promise.all(pending), ended]);
    } finally {
      if (stopWaiting) signal?.removeEventListener("abort", stopWaiting);
    }
  }
}
