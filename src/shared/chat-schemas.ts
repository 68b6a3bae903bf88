// The chat's shapes: starting and stopping agent runs, redrawing a session, the model and agent
// pickers, and the session's todo list. Run events themselves are in run-event-schema.ts.
import { z } from "zod";
import { ApprovalRequestSchema } from "./approval-schemas.ts";
import { QuestionRequestSchema } from "./question-schemas.ts";
import { RunEventSchema } from "./run-event-schema.ts";
import { BackgroundTaskSchema } from "./task-schemas.ts";

/** A chat session's id: the engine's rule for persistent session ids. */
export const SessionIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

const RunIdSchema = z.string().min(1).max(200);

export const ChatSendSchema = z.strictObject({
  prompt: z
    .string()
    .max(1_000_000)
    .refine((text) => text.trim() !== "", "the prompt is empty: say what the agent should do"),
  /** The session to continue, or to start under this id; a new session without one. */
  sessionId: SessionIdSchema.optional(),
  /** `PROVIDER:MODEL`; default: the session's, the agent's, then settings' defaultModel. */
  model: z.string().min(1).max(4096).optional(),
  /** The agent's id; default: the session's, else "default". */
  agent: z.string().min(1).max(200).optional(),
});

/** The run a send started (its events follow as `run.event` pushes). */
export const ChatStartedSchema = z.strictObject({ sessionId: z.string(), runId: z.string() });

export const ChatAbortSchema = z.strictObject({ runId: RunIdSchema });

const TodoItemSchema = z.strictObject({
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed"]),
});

/** The `todos.changed` push: a chat session's whole new todo list. */
export const TodosChangedSchema = z.strictObject({
  sessionId: z.string(),
  todos: z.array(TodoItemSchema),
});

/** One turn of a recorded session: the person's prompt and the events of the run it started. */
const ChatTurnSchema = z.strictObject({
  runId: z.string(),
  prompt: z.string(),
  events: z.array(RunEventSchema),
});

/** Everything to redraw a session: its turns in order, its todo list, and the run going on, if any. */
export const ChatHistorySchema = z.strictObject({
  sessionId: z.string(),
  agent: z.string(),
  model: z.string(),
  turns: z.array(ChatTurnSchema),
  todos: z.array(TodoItemSchema),
  /** Its background tasks this host started (running ones have a Stop), oldest first. */
  tasks: z.array(BackgroundTaskSchema),
  /** The run of this session still going on (started in any UI), whose further events arrive as pushes. */
  runningRunId: z.string().optional(),
  /** The `index` of that run's next push: its pushes below it are already in the last turn. */
  runningNextIndex: z.number().int().nonnegative().optional(),
  /**
   * true: the run going on in the session (or a background task of an earlier one) is this UI's
   * tab's: this tab started it, maybe before a reload (see tab-id.ts). A UI showing a run it does
   * not own may leave it; the run goes on.
   */
  runOwned: z.literal(true).optional(),
  /**
   * What its runs wait for the person to answer now (started in any UI): the approval prompt and
   * question dialog on screen, each answered from any UI that shows the session. Later ones, and
   * the end of these, arrive as pushes.
   */
  approvals: z.array(ApprovalRequestSchema),
  questions: z.array(QuestionRequestSchema),
});

export const ModelListSchema = z.strictObject({
  /** Models the configured endpoints offer, as `PROVIDER:MODEL`. */
  models: z.array(z.strictObject({ id: z.string(), provider: z.string() })),
  /** The settings' `defaultModel`, if any (it need not be listed: a GGUF file, a cloud model). */
  defaultModel: z.string().optional(),
  /** Every provider a model can name, with one line about it. */
  providers: z.array(z.strictObject({ name: z.string(), description: z.string() })),
  /** Endpoints that did not answer, and what to do about it. */
  notices: z.array(z.string()),
});

export const AgentListSchema = z.strictObject({
  agents: z.array(
    z.strictObject({
      id: z.string(),
      description: z.string(),
      model: z.string().optional(),
      layer: z.string(),
    }),
  ),
  /** Manifests that could not be read, each with its fix. */
  problems: z.array(z.string()),
  notices: z.array(z.string()),
});

export type ChatSend = z.input<typeof ChatSendSchema>;
export type ChatStarted = z.output<typeof ChatStartedSchema>;
export type TodoItem = z.output<typeof TodoItemSchema>;
export type ChatTurn = z.output<typeof ChatTurnSchema>;
export type ChatHistory = z.output<typeof ChatHistorySchema>;
export type ModelList = z.output<typeof ModelListSchema>;
export type AgentList = z.output<typeof AgentListSchema>;
