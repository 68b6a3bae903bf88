// Checkpoints and rewind: listing a session's checkpoints, previewing and restoring one, and
// rewinding a session to before a prompt (files and conversation). A path the person changed
// since is a conflict: the answer lists it, and the UI asks before overwriting it.
import { z } from "zod";
import { SessionIdSchema } from "./chat-schemas.ts";

const CheckpointIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const PathSchema = z.string().min(1).max(4096);
const EntryTypeSchema = z.enum(["file", "folder"]);

/** One path a checkpoint covers. */
const CheckpointFileSchema = z.strictObject({
  path: z.string(),
  type: EntryTypeSchema,
  change: z.enum(["created", "modified", "deleted"]),
  /** What a "modified" path became when the change turned a file into a folder or back. */
  became: z.enum(["file", "folder"]).optional(),
  /** Why it may not be restorable (e.g. its previous content was not kept). */
  note: z.string().optional(),
});

export const CheckpointSummarySchema = z.strictObject({
  id: z.number().int(),
  sessionId: z.string(),
  /** `tool`: a call changed files; `restore` / `rewind`: what a restore replaced (restore it to undo). */
  kind: z.enum(["tool", "restore", "rewind"]),
  tool: z.string(),
  callId: z.string().nullable(),
  /** The model's id of the call: the tool card it belongs to. */
  toolCallId: z.string().nullable(),
  messageSeq: z.number().int().nullable(),
  /** The run (turn) it was made in. */
  runId: z.string().nullable(),
  createdAt: z.number(),
  /** The restore or rewind checkpoint that undid it, if any. */
  restoredBy: z.number().int().nullable(),
  undoes: z.array(z.number().int()),
  files: z.array(CheckpointFileSchema),
});

/** What a restore does to one path, and whether it needs the person first. */
const PlannedPathSchema = z.strictObject({
  path: z.string(),
  type: EntryTypeSchema,
  /** restore: previous content back; recreate: deleted since, comes back; delete: created by the change; none: already as it was. */
  action: z.enum(["restore", "recreate", "delete", "none"]),
  /** It changed since (by the person or a later call): overwrite only if they say so. */
  conflict: z.string().optional(),
  /** With `conflict`: only its mode changed since (a chmod); its content is as it was left. */
  modeOnly: z.boolean().optional(),
  /** It cannot be restored at all, and why. */
  unavailable: z.string().optional(),
});

export const RestorePlanSchema = z.strictObject({
  /** The checkpoints undone, newest first. */
  checkpoints: z.array(z.number().int()),
  paths: z.array(PlannedPathSchema),
});

export const RewindPlanSchema = RestorePlanSchema.extend({
  sessionId: z.string(),
  /** The prompt the conversation is cut before (it and everything after go). */
  beforeMessage: z.number().int(),
  runId: z.string(),
  /** Messages the conversation loses, and their runs. */
  messages: z.number().int(),
  runs: z.array(z.string()),
  /** Task sessions the removed turns started, whose changes are undone too. */
  tasks: z.array(z.string()),
});

const SkippedPathSchema = z.strictObject({ path: z.string(), reason: z.string() });

export const RestoreOutcomeSchema = z.strictObject({
  /** False: paths need a decision (listed in `blocked`) and nothing was changed. */
  applied: z.boolean(),
  plan: RestorePlanSchema,
  blocked: z.array(PlannedPathSchema),
  skipped: z.array(SkippedPathSchema),
  failed: z.array(SkippedPathSchema),
  /** Why the restore was stopped before its last path (the CLI's Ctrl-C), when it was. */
  stopped: z.string().optional(),
  /** Restore this checkpoint to undo the restore. */
  undoCheckpoint: z.number().int().nullable(),
});

export const RewindOutcomeSchema = RestoreOutcomeSchema.extend({
  plan: RewindPlanSchema,
  conversationCut: z.boolean(),
});

/** The person's answer per conflicting path: overwrite their change, or keep the path as it is. */
const RestoreChoicesSchema = z
  .record(PathSchema, z.enum(["overwrite", "keep"]))
  .refine((choices) => Object.keys(choices).length <= 10_000, "at most 10000 choices");

const RestoreDecisionFields = {
  /** Overwrite every conflict and leave what cannot be restored as it is. */
  force: z.boolean().optional(),
  choices: RestoreChoicesSchema.optional(),
};

/** Before which prompt to rewind: its message number, or the run (turn) it started. */
const RewindPointSchema = z.union([
  z.strictObject({ message: z.number().int().min(0) }),
  z.strictObject({ runId: z.string().min(1).max(200) }),
]);

export const CheckpointListRequestSchema = z.strictObject({ sessionId: SessionIdSchema });
export const CheckpointPreviewRequestSchema = z.strictObject({
  sessionId: SessionIdSchema,
  checkpointId: CheckpointIdSchema,
});
export const CheckpointRestoreRequestSchema = CheckpointPreviewRequestSchema.extend(RestoreDecisionFields);
export const RewindPreviewRequestSchema = z.strictObject({
  sessionId: SessionIdSchema,
  before: RewindPointSchema,
});
export const RewindRequestSchema = RewindPreviewRequestSchema.extend(RestoreDecisionFields);

export type CheckpointSummary = z.output<typeof CheckpointSummarySchema>;
export type RestorePlan = z.output<typeof RestorePlanSchema>;
export type RewindPlan = z.output<typeof RewindPlanSchema>;
export type RestoreOutcome = z.output<typeof RestoreOutcomeSchema>;
export type RewindOutcome = z.output<typeof RewindOutcomeSchema>;
