import type { TaskResult } from "../tools/task-host.ts";

interface TaskEntry {
  parentSessionId: string;
  /** Resolves with the result once the child run stopped; never rejects. */
  done: Promise<TaskResult>;
  result: TaskResult | undefined;
}

/**
 * The tasks (child sessions a `task` call started) one engine runs in this process, so their
 * results outlive the run that started them: a later run collects them, hosts ask where one
 * stands and wait for all of them before the engine closes.
 */
export class TaskBoard {
  private readonly entries = new Map<string, TaskEntry>();

  add(taskId: string, parentSessionId: string, done: Promise<TaskResult>): void {
    const entry: TaskEntry = { parentSessionId, done, result: undefined };
    this.entries.set(taskId, entry);
    void done.then((result) => (entry.result = result));
  }

  get(taskId: string): Readonly<TaskEntry> | undefined {
    return this.entries.get(taskId);
  }

  /** The ids of the tasks a session started that are still running, oldest first. */
  runningOf(parentSessionId: string): string[] {
    return [...this.entries]
      .filter(([, e]) => e.parentSessionId === parentSessionId && e.result === undefined)
      .map(([id]) => id);
  }

  /** The tasks still running. */
  unfinished(): Promise<TaskResult>[] {
    return [...this.entries.values()].filter((e) => e.result === undefined).map((e) => e.done);
  }
}
