// The chat's background tasks: subagents a run started with `background: true`, which may go on
// after that run ended. The person sees each (agent, label, running time, how it ended) and can
// stop it; every UI of the host gets the same list.
import { z } from "zod";

const TaskIdSchema = z.string().min(1).max(64);

/** One background task of a session, as the chat lists it. */
export const BackgroundTaskSchema = z.strictObject({
  /** The task's child session (open it like any session). */
  taskId: TaskIdSchema,
  /** The session whose run started it: the open session's, or one of its tasks' for a task of a task. */
  parentSessionId: z.string(),
  description: z.string(),
  agent: z.string(),
  /** Epoch milliseconds. */
  startedAt: z.number(),
  /** Epoch milliseconds; absent while it runs. */
  endedAt: z.number().optional(),
  status: z.enum(["running", "completed", "max-rounds", "aborted", "failed", "interrupted"]),
});

/** The `tasks.changed` push: a session's background tasks as they are now (running, then ended). */
export const TasksChangedSchema = z.strictObject({
  sessionId: z.string(),
  tasks: z.array(BackgroundTaskSchema),
});

export const TaskStopSchema = z.strictObject({ taskId: TaskIdSchema });

export const TaskStoppedSchema = z.strictObject({ taskId: z.string(), stopped: z.literal(true) });

export type BackgroundTask = z.output<typeof BackgroundTaskSchema>;
export type TasksChanged = z.output<typeof TasksChangedSchema>;
