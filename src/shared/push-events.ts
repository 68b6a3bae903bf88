// What the host pushes to the renderer without being asked: approval prompts, live tool activity,
// the project's trust status, the state of its plugins and MCP servers (and the dialog before one
// starts without the OS sandbox), the chat (run events, todo lists, background tasks, the question dialog) and its
// checkpoints. Declared here once, with a zod schema per event; the receiving
// side (preload, WebSocket client) validates every frame against it before any listener sees it.
import { z } from "zod";
import { ApprovalAnswerSchema, ProjectStatusSchema } from "./api-contract.ts";
import { ApprovalRequestSchema } from "./approval-schemas.ts";
import { CallPhaseSchema } from "./call-phase-schema.ts";
import { EnvelopeSchema } from "./envelope-schema.ts";
import { ToolOriginSchema } from "./tool-origin.ts";
import { TodosChangedSchema } from "./chat-schemas.ts";
import { TasksChangedSchema } from "./task-schemas.ts";
import { ExtensionsStatusSchema } from "./extensions-schemas.ts";
import { UnsandboxedMcpRequestSchema, UnsandboxedMcpSettledSchema } from "./mcp-unsandboxed-schemas.ts";
import { QuestionRequestSchema, QuestionSettledSchema } from "./question-schemas.ts";
import { RunEventPushSchema } from "./run-event-schema.ts";
import { TabAssignedSchema } from "./tab-id.ts";

/** The IPC channel (Electron) that carries every push frame to the renderer. */
export const PUSH_CHANNEL = "lathe.push";

const ApprovalSettledSchema = z.strictObject({
  id: z.string().min(1),
  answer: ApprovalAnswerSchema,
  /** answered: by the person; aborted: the call was stopped; closed: the window or session went away. */
  cause: z.enum(["answered", "aborted", "closed"]),
});

const DecisionSchema = z.strictObject({
  stage: z.enum(["capability", "rule", "watchdog", "approval"]),
  outcome: z.enum(["allow", "deny", "ask"]),
  reason: z.string(),
});

const ToolStartedSchema = z.strictObject({
  callId: z.string(),
  sessionId: z.string(),
  toolId: z.string(),
  /** Absent for a tool id the registry does not know. */
  origin: ToolOriginSchema.optional(),
  /** The arguments with secrets redacted. */
  args: z.unknown(),
  /** Epoch milliseconds. */
  startedAt: z.number(),
});

const ToolPhaseSchema = z.strictObject({
  callId: z.string(),
  sessionId: z.string(),
  toolId: z.string(),
  phase: CallPhaseSchema,
});

const ToolFinishedSchema = ToolStartedSchema.extend({
  envelope: EnvelopeSchema,
  /** Each decision on the way: capability, rule, watchdog, approval. */
  decisions: z.array(DecisionSchema),
});

/** Every push: its event name and the schema of its payload. */
const pushes = {
  "approval.requested": ApprovalRequestSchema,
  "approval.settled": ApprovalSettledSchema,
  "tool.started": ToolStartedSchema,
  /** One of those calls waits (queued, awaiting approval), or runs after waiting. */
  "tool.phase": ToolPhaseSchema,
  "tool.finished": ToolFinishedSchema,
  "project.status": ProjectStatusSchema,
  /** Plugins, servers or the tools they bring changed (a server connected, a plugin reloaded). */
  "extensions.changed": ExtensionsStatusSchema,
  /** One event of an agent run in one of this UI's chat sessions (text deltas, tool calls, results...). */
  "run.event": RunEventPushSchema,
  /** A chat session's todo list was replaced. */
  "todos.changed": TodosChangedSchema,
  /** A chat session's background tasks changed: one started or ended (its run may be over). */
  "tasks.changed": TasksChangedSchema,
  /** The agent asks the person: show the dialog and answer with `question.respond`. */
  "question.requested": QuestionRequestSchema,
  /** The dialog is over (answered, dismissed, its call stopped, or the UI went away). */
  "question.settled": QuestionSettledSchema,
  /**
   * This folder's session list changed in another UI too: a session started or was renamed or
   * deleted, or a run in one began or ended. Fetch the list again. `deleted`: the sessions just
   * deleted (a UI that has one of them open leaves it: sending there would start it afresh).
   */
  "sessions.changed": z.strictObject({ deleted: z.array(z.string()).optional() }),
  /** A checkpoint was recorded in a session (a call changed files, or a restore or rewind did). */
  "checkpoints.changed": z.strictObject({ sessionId: z.string(), checkpointId: z.number().int() }),
  /** A stdio MCP server would start without the OS sandbox: ask the person first. */
  "mcp.unsandboxedRequested": UnsandboxedMcpRequestSchema,
  /** That dialog is over. */
  "mcp.unsandboxedSettled": UnsandboxedMcpSettledSchema,
  /** The tab id this UI goes by (see tab-id.ts): sent once it is known, right after connecting. */
  "tab.assigned": TabAssignedSchema,
} as const;

export type PushEvent = keyof typeof pushes;
export type PushOf<E extends PushEvent> = z.output<(typeof pushes)[E]>;

/** One push as it travels: over IPC as the message, over the WebSocket as a JSON text frame. */
export type PushFrame = { [E in PushEvent]: { event: E; payload: PushOf<E> } }[PushEvent];

export { ApprovalRequestSchema };

export const PushFrameSchema = z.strictObject({ event: z.string(), payload: z.unknown() });

export type ApprovalRequest = PushOf<"approval.requested">;
export type ApprovalSettled = PushOf<"approval.settled">;
export type ToolStarted = PushOf<"tool.started">;
export type ToolFinished = PushOf<"tool.finished">;
export type ToolPhase = PushOf<"tool.phase">;
export type RunEventPayload = PushOf<"run.event">;
export type QuestionPrompt = PushOf<"question.requested">;
export type UnsandboxedMcpPrompt = PushOf<"mcp.unsandboxedRequested">;

function isPushEvent(value: unknown): value is PushEvent {
  return typeof value === "string" && Object.hasOwn(pushes, value);
}

/**
 * Check one frame against the contract: a known event whose payload matches its schema (extra
 * keys refused). Both sides use it: the host before sending, the renderer's transport on arrival.
 */
export function parsePushFrame(
  frame: unknown,
): { ok: true; frame: PushFrame } | { ok: false; error: string } {
  const outer = PushFrameSchema.safeParse(frame);
  if (!outer.success) return { ok: false, error: "a push frame must be {event, payload}" };
  const { event, payload } = outer.data;
  if (!isPushEvent(event)) return { ok: false, error: `unknown push event ${JSON.stringify(event)}` };
  const parsed = pushes[event].safeParse(payload);
  if (!parsed.success) return { ok: false, error: `invalid ${event} push: ${z.prettifyError(parsed.error)}` };
  return { ok: true, frame: { event, payload: parsed.data } as PushFrame };
}
