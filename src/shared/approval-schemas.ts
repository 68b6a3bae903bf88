// The approval prompt as the host shows it (the `approval.requested` push, and a chat's history
// while it waits). Its own file so the chat's shapes can carry it without importing the pushes.
import { z } from "zod";
import { ToolOriginSchema } from "./tool-origin.ts";

/**
 * The chat session whose run asks: every UI that shows that session shows the prompt, and any of
 * them may answer it. Absent: the prompt belongs to the one UI that made the call (its Tools view).
 * `sessionId` is the session of the call itself, a subagent's own for a call it makes.
 */
export const RunSessionIdSchema = z.string().min(1).max(200).optional();

/** A call that needs a person's yes or no: nothing in it is shortened. */
export const ApprovalRequestSchema = z.strictObject({
  /** The id to answer with `approval.respond`; unique per prompt. */
  id: z.string().min(1),
  sessionId: z.string(),
  runSessionId: RunSessionIdSchema,
  toolId: z.string(),
  /** The model's id of the call in the chat (its tool card), for a chat run's call. */
  toolCallId: z.string().optional(),
  origin: ToolOriginSchema,
  /** The full validated arguments (for bash, the whole command). */
  args: z.unknown(),
  approvalKey: z.string(),
  /** Why the call needs approval: the rule, watchdog or parser reasons. */
  reasons: z.array(z.string()),
});
