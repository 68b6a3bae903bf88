// The audit view's shapes: a page of the open folder's audit trail (every tool call with its
// decision chain), filtered by session, tool and outcome, newest first.
import { z } from "zod";

/** output: it ran and answered; error: it failed otherwise; denied: a stage refused it. */
const AuditOutcomeSchema = z.enum(["output", "error", "denied"]);

export const AuditQuerySchema = z.strictObject({
  sessionId: z.string().min(1).max(200).optional(),
  toolId: z.string().min(1).max(256).optional(),
  outcome: AuditOutcomeSchema.optional(),
  /** The next page: rows older than this one. */
  beforeId: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

/** One stage of a call's decision chain as the trail recorded it. */
const AuditDecisionSchema = z.object({
  stage: z.string(),
  outcome: z.string(),
  reason: z.string(),
});

const AuditEntrySchema = z.strictObject({
  id: z.number().int(),
  callId: z.string(),
  sessionId: z.string(),
  toolId: z.string(),
  origin: z.strictObject({ layer: z.string(), kind: z.string(), name: z.string().optional() }).optional(),
  /** The arguments with secrets redacted. */
  args: z.unknown(),
  decisions: z.array(AuditDecisionSchema),
  outcome: AuditOutcomeSchema,
  /** The start of the envelope, as JSON text. */
  envelopeHead: z.string(),
  durationMs: z.number(),
  startedAt: z.number(),
});

export const AuditPageSchema = z.strictObject({
  /** The folder whose calls these are: the open folder (its real path). */
  root: z.string(),
  /** Newest first. */
  entries: z.array(AuditEntrySchema),
  /** Older rows match too: ask again with `beforeId` set to the last entry's id. */
  more: z.boolean(),
  /** Sessions and tools the folder's trail names, most recent first, for the filters. */
  sessions: z.array(z.string()),
  tools: z.array(z.string()),
});

export type AuditOutcome = z.output<typeof AuditOutcomeSchema>;
export type AuditEntry = z.output<typeof AuditEntrySchema>;
export type AuditPage = z.output<typeof AuditPageSchema>;
