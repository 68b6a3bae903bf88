import type { ConversationStore } from "../store/conversation-store.ts";
import type { TaskResult, TaskStatus } from "../tools/task-host.ts";
import type { RunEvent } from "./run-events.ts";
import { StepText } from "./step-text.ts";

function pathsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((p): p is string => typeof p === "string") : [];
}

/** What the model is told of a task that ended unfinished without an error of its own. */
const UNFINISHED: Partial<Record<TaskStatus, string>> = {
  "max-rounds":
    "The task used up its model steps before it finished (its agent's budgets.maxRounds, or the steps your run had left). Its summary is what it said so far and its artifacts what it wrote: check them, then do what is left yourself or start a task for only that.",
  aborted:
    "The task was stopped before it finished. Its summary is what it said so far and its artifacts what it wrote: check them before you go on.",
  interrupted:
    "The Lathe process that ran the task stopped before the task finished. Its summary is what it said so far and its artifacts what it wrote: check them, then do what is left yourself or start a task for only that.",
};

/**
 * A task's result from the events of its child run, live or as recorded: the final text, how the
 * run ended, and the artifacts — the paths of successful calls of editing tools (kind "edit":
 * write, edit, and plugins of that kind), plus those its own tasks reported. Each `start` begins
 * a new run, so a session resumed later reports its last run.
 */
export class TaskReport {
  private readonly isEdit: (toolId: string) => boolean;
  private text = new StepText();
  private status: TaskStatus = "running";
  private error: string | undefined;
  private artifacts = new Set<string>();

  constructor(isEdit: (toolId: string) => boolean) {
    this.isEdit = isEdit;
  }

  add(event: RunEvent): void {
    switch (event.type) {
      case "start":
        this.text = new StepText();
        this.status = "running";
        this.error = undefined;
        this.artifacts = new Set();
        break;
      case "text":
        this.text.add(event.step, event.text);
        break;
      case "tool-result": {
        if (event.envelope.type !== "output") break;
        const data = event.envelope.data as Record<string, unknown> | null;
        if (typeof data !== "object" || data === null) break;
        if (event.toolName === "task") for (const p of pathsIn(data.artifacts)) this.artifacts.add(p);
        else if (this.isEdit(event.toolName) && typeof data.path === "string") this.artifacts.add(data.path);
        break;
      }
      case "error":
        this.error = event.message;
        break;
      case "finish":
        this.status = event.status;
        break;
      default:
        break;
    }
  }

  /** The result so far; `ended` overrides the status when the run is known to have stopped without a `finish`. */
  result(taskId: string, ended?: TaskStatus): TaskResult {
    const status = this.status === "running" && ended !== undefined ? ended : this.status;
    if (status === "running") return { task_id: taskId, status };
    return {
      task_id: taskId,
      status,
      summary: this.text.toString(),
      artifacts: [...this.artifacts],
      ...(this.error !== undefined && status !== "completed"
        ? { error: this.error }
        : UNFINISHED[status] !== undefined
          ? { error: UNFINISHED[status] }
          : {}),
    };
  }
}

/**
 * A task's result from its recorded events: for a child no process is running any more, a run
 * without a `finish` was interrupted. Undefined when there is no such child session.
 */
export function storedTaskResult(
  store: ConversationStore,
  taskId: string,
  isEdit: (toolId: string) => boolean,
): TaskResult | undefined {
  const record = store.get(taskId);
  if (!record || record.parentSessionId === null) return undefined;
  const report = new TaskReport(isEdit);
  for (const e of store.events(taskId)) report.add(e.data as RunEvent);
  return report.result(taskId, "interrupted");
}
