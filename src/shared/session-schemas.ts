// The session list's shapes: a folder's recorded conversations (title, time, model, the task
// that started one), and renaming, deleting and searching them.
import { z } from "zod";
import { SessionIdSchema } from "./chat-schemas.ts";

export const SessionSummarySchema = z.strictObject({
  id: z.string(),
  /** The person's name for it, else the task's description, else its first prompt; "" before any prompt. */
  title: z.string(),
  titleSource: z.enum(["custom", "task", "prompt", "none"]),
  agent: z.string(),
  model: z.string(),
  /** The session whose task started this one. */
  parentId: z.string().optional(),
  /** Milliseconds since the epoch. */
  createdAt: z.number(),
  updatedAt: z.number(),
  /** A run is going on in it (in any window of this host). */
  running: z.boolean(),
  /** Its runs wait for the person: an approval or a question, answered from any window that opens it. */
  waiting: z.boolean(),
});

export const SessionListRequestSchema = z
  .strictObject({
    /** Only sessions whose title or text contains this (any case). */
    query: z.string().max(200).optional(),
  })
  .optional();

export const SessionListSchema = z.strictObject({
  /** The folder the sessions belong to. */
  root: z.string(),
  /** Newest first; tasks point at their parent with `parentId`. */
  sessions: z.array(SessionSummarySchema),
});

export const SessionRenameSchema = z.strictObject({
  sessionId: SessionIdSchema,
  /** The new name; empty brings back the automatic title. */
  title: z.string().max(200, "a session title has at most 200 characters"),
});

export const SessionDeleteSchema = z.strictObject({ sessionId: SessionIdSchema });

export const SessionDeletedSchema = z.strictObject({
  /** The session and the task sessions it started, all gone. */
  deleted: z.array(z.string()),
});

export type SessionSummary = z.output<typeof SessionSummarySchema>;
export type SessionList = z.output<typeof SessionListSchema>;
