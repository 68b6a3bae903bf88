/**
 * How many background tasks of one session run at once: each is a model stream of its own (a
 * local model serves them side by side), so a model starting tasks in a loop is stopped here.
 */
export const MAX_BACKGROUND_TASKS = 4;

/** What a `task` call asks of the agent run it is made in. */
export interface TaskRequest {
  /** A short label, shown to the person and stored with the link to the child session. */
  description: string;
  /** The child agent's whole brief. */
  prompt: string;
  /** The child's agent id; the delegating run's own agent when absent. */
  agent: string | undefined;
  background: boolean;
  /** The caller's id of the `task` call (the model's tool call id), so the child is tied to it. */
  toolCallId: string | undefined;
}

/**
 * Where a task stands: `running`, how its run ended (`completed`, `max-rounds`, `aborted`,
 * `failed`), or `interrupted` when the process that ran it stopped before it finished.
 */
export type TaskStatus = "running" | "completed" | "max-rounds" | "aborted" | "failed" | "interrupted";

/** What the model reads back from `task`. */
export interface TaskResult {
  /** The child's session id (hosts open it like any other session). */
  task_id: string;
  status: TaskStatus;
  /** The child's final text (its answer to the brief). Absent while it runs. */
  summary?: string;
  /** Workspace paths the child wrote or edited, in the order it first did. Absent while it runs. */
  artifacts?: string[];
  /**
   * For a task that did not complete: what went wrong, or why it stopped, and what to do next;
   * for one still running in another Lathe process, where, and that it cannot be awaited here.
   */
  error?: string;
}

/**
 * The seam between the `task` tool (a built-in, registered in every engine) and the agent run
 * that can actually delegate: a run attaches a host to its session while it runs, and `task`
 * finds it as `runtime.session.tasks`. Outside a run there is none, and `task` says so.
 */
export interface TaskHost {
  /**
   * Start a child run. Resolves with its result once it finished, or at once with status
   * `running` for a background task. Throws ToolCallError when the task cannot start.
   */
  start(request: TaskRequest, signal: AbortSignal): Promise<TaskResult>;
  /** Wait for a task this session started (in the background) and return its result. */
  collect(taskId: string, signal: AbortSignal): Promise<TaskResult>;
}
