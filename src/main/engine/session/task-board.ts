import type { TaskResult, TaskStatus } from "../tools/task-host.ts";

/** A task as hosts list it (the person sees its label, its agent, how long it has run, and how it ended). */
export interface TaskInfo {
  taskId: string;
  /** The session whose run started it. */
  parentSessionId: string;
  /** The person's session it works under: its parent's, or for a task of a task, the first run's. */
  rootSessionId: string;
  description: string;
  agent: string;
  /** Started with `background: true`: it may outlive the run that started it. */
  background: boolean;
  /** Epoch milliseconds. */
  startedAt: number;
  /** Epoch milliseconds; absent while it runs. */
  endedAt?: number;
  status: TaskStatus;
}

/** What the run that starts a task tells the board about it. */
export interface TaskStart {
  parentSessionId: string;
  description: string;
  agent: string;
  background: boolean;
  /** Aborts the task's run (its model stream and its tool calls, their process trees included). */
  stop(reason: Error): void;
}

interface TaskEntry extends TaskStart {
  rootSessionId: string;
  startedAt: number;
  endedAt: number | undefined;
  /** Resolves with the result once the child run stopped; never rejects. */
  done: Promise<TaskResult>;
  result: TaskResult | undefined;
}

/**
 * The tasks (child sessions a `task` call started) one engine runs in this process, so their
 * results outlive the run that started them: a later run collects them, hosts list and stop a
 * session's tasks, and wait for all of them before the engine closes. `onChange` hears of every
 * task that starts or ends, by the session it works under.
 */
export class TaskBoard {
  private readonly entries = new Map<string, TaskEntry>();
  private readonly onChange: (rootSessionId: string) => void;

  constructor(onChange: (rootSessionId: string) => void = () => undefined) {
    this.onChange = onChange;
  }

  add(taskId: string, start: TaskStart, done: Promise<TaskResult>): void {
    const rootSessionId = this.entries.get(start.parentSessionId)?.rootSessionId ?? start.parentSessionId;
    const entry: TaskEntry = {
      ...start,
      rootSessionId,
      startedAt: Date.now(),
      endedAt: undefined,
      done,
      result: undefined,
    };
    this.entries.set(taskId, entry);
    this.onChange(rootSessionId);
    void done.then((result) => {
      entry.result = result;
      entry.endedAt = Date.now();
      this.onChange(rootSessionId);
    });
  }

  /**
   * Take in the running tasks of `previous`, the board of an engine this one replaces for the same
   * folder: a later run here collects them, stops them and counts them as its session's. They stay
   * the previous board's too (its engine is told when they end, and waits for them to close).
   */
  adopt(previous: TaskBoard): void {
    for (const [taskId, entry] of previous.entries) {
      if (entry.result === undefined && !this.entries.has(taskId)) this.entries.set(taskId, entry);
    }
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

  /**
   * The background tasks working under a session (its own, and those its tasks started), running
   * or ended, oldest first; every background task of the board without a session.
   */
  background(rootSessionId?: string): TaskInfo[] {
    return [...this.entries]
      .filter(([, e]) => e.background && (rootSessionId === undefined || e.rootSessionId === rootSessionId))
      .map(([taskId, e]) => ({
        taskId,
        parentSessionId: e.parentSessionId,
        rootSessionId: e.rootSessionId,
        description: e.description,
        agent: e.agent,
        background: e.background,
        startedAt: e.startedAt,
        ...(e.endedAt !== undefined ? { endedAt: e.endedAt } : {}),
        status: e.result?.status ?? "running",
      }));
  }

  /** Stop a running task (and the tasks it started); false when it is not running here. */
  stop(taskId: string, reason: Error): boolean {
    const entry = this.entries.get(taskId);
    if (!entry || entry.result !== undefined) return false;
    entry.stop(reason);
    return true;
  }

  /** The tasks still running. */
  unfinished(): Promise<TaskResult>[] {
    return [...this.entries.values()].filter((e) => e.result === undefined).map((e) => e.done);
  }

  /**
   * Resolves once none of `taskIds` (every task, without them) runs; ids added to the set
   * meanwhile (tasks those tasks start) are waited for too. Never rejects.
   */
  async settled(taskIds?: ReadonlySet<string>): Promise<void> {
    for (;;) {
      const pending = taskIds
        ? [...taskIds].flatMap((id) => {
            const entry = this.entries.get(id);
            return entry && entry.result === undefined ? [entry.done] : [];
          })
        : this.unfinished();
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }
}
