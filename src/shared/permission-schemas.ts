// The Settings view's permissions: the approval mode, the permission rules of each scope (the
// user's and the project's settings files, edited and validated here), the sessions' "always"
// answers (revocable), and a check that shows which rule, of which scope, decides a call.
import { z } from "zod";

const ApprovalModeSchema = z.enum(["ask", "allowlist", "yolo"]);
const RuleActionSchema = z.enum(["allow", "deny", "ask"]);
const EditableScopeSchema = z.enum(["user", "project"]);

/** One rule as a settings file holds it. */
export const RuleSchema = z.strictObject({
  permission: z.string().trim().min(1, "name a tool, a capability or *").max(256),
  pattern: z.string().trim().min(1, "give a pattern (* matches everything)").max(4096),
  action: RuleActionSchema,
});

const ScopeRulesSchema = z.strictObject({
  scope: EditableScopeSchema,
  file: z.string(),
  rules: z.array(RuleSchema),
  /** all: every rule applies; deny-only: the folder is not trusted, so only its deny rules do. */
  applies: z.enum(["all", "deny-only"]),
  /** The file cannot be read: what is wrong (fix it by hand; nothing is saved over it). */
  problem: z.string().optional(),
});

const StoredApprovalSchema = z.strictObject({
  tool: z.string(),
  key: z.string(),
  createdAt: z.number(),
});

const SessionApprovalsSchema = z.strictObject({
  sessionId: z.string(),
  title: z.string(),
  /** A run is going on in it: its answers cannot be revoked until it ends. */
  running: z.boolean(),
  approvals: z.array(StoredApprovalSchema),
});

export const PermissionsViewSchema = z.strictObject({
  approvals: z.strictObject({
    /** The mode new sessions use. */
    mode: ApprovalModeSchema,
    /** Where it comes from: the project's settings (trusted), the user's, or the default. */
    source: z.enum(["project", "user", "default"]),
    userMode: ApprovalModeSchema.optional(),
    /** The user's `approvals.allowlist` (keys that pass in allowlist mode). */
    allowlist: z.array(z.string()),
  }),
  scopes: z.array(ScopeRulesSchema),
  sessions: z.array(SessionApprovalsSchema),
});

/** A rule exactly as a settings file holds it (not trimmed): what a save expects to find there. */
const StoredRuleSchema = z.strictObject({
  permission: z.string().max(4096),
  pattern: z.string().max(4096),
  action: RuleActionSchema,
});

export const SaveRulesSchema = z.strictObject({
  scope: EditableScopeSchema,
  rules: z.array(RuleSchema).max(2_000),
  /**
   * The scope's rules as the editor read them before the person changed them: when the file holds
   * other rules now (another window saved, or an edit by hand), the save is refused, not merged.
   */
  expected: z.array(StoredRuleSchema).max(2_000),
});

export const SetApprovalsSchema = z.strictObject({
  /** null removes the user's mode (the default, ask, applies). */
  mode: ApprovalModeSchema.nullable(),
  allowlist: z.array(z.string().trim().min(1).max(4096)).max(2_000),
  /** The user's mode and allowlist as the view read them: a file changed since is not saved over. */
  expected: z.strictObject({
    mode: ApprovalModeSchema.nullable(),
    allowlist: z.array(z.string().max(4096)).max(2_000),
  }),
});

export const RevokeApprovalsSchema = z.strictObject({
  sessionId: z.string().min(1).max(200),
  /** One answer; without it, every "always" answer of the session. */
  approval: z
    .strictObject({ tool: z.string().min(1).max(256), key: z.string().min(1).max(100_000) })
    .optional(),
});

/** What a call touches, to see which rule decides it. */
const RuleProbeSchema = z.strictObject({
  capability: z.enum(["fs.read", "fs.write", "shell.run", "net.fetch"]),
  /** The tool making the call (a rule may name it instead of the capability). */
  toolId: z.string().trim().max(256).optional(),
  /** A path (relative to the folder), a command line, or a host. */
  value: z.string().trim().min(1).max(4096),
});

/** The rules as being edited (not yet saved), and optionally a call to try them on. */
export const CheckRulesSchema = z.strictObject({
  rules: z.strictObject({ user: z.array(z.unknown()).max(2_000), project: z.array(z.unknown()).max(2_000) }),
  probe: RuleProbeSchema.optional(),
});

const RuleRefSchema = z.strictObject({ scope: EditableScopeSchema, index: z.number().int() });

/** The field of a rule a problem is about (none: the row as a whole). */
const RuleFieldSchema = z.enum(["permission", "pattern", "action"]);

export const RuleCheckSchema = z.strictObject({
  /** Rows that are not valid rules, and why: one entry per field that is wrong. */
  problems: z.array(RuleRefSchema.extend({ field: RuleFieldSchema.optional(), message: z.string() })),
  /** The same permission and pattern in both scopes: which one wins, and why. */
  conflicts: z.array(
    z.strictObject({
      user: z.number().int(),
      project: z.number().int(),
      winner: EditableScopeSchema,
      why: z.string(),
    }),
  ),
  /** The probe's verdict: the deciding rule (absent: none matched, so ask), every rule that matched. */
  verdict: z
    .strictObject({
      action: RuleActionSchema,
      decidedBy: RuleRefSchema.optional(),
      matches: z.array(RuleRefSchema.extend({ ignored: z.string().optional() })),
      explanation: z.string(),
    })
    .optional(),
});

export type ApprovalMode = z.output<typeof ApprovalModeSchema>;
export type Rule = z.output<typeof RuleSchema>;
export type EditableScope = z.output<typeof EditableScopeSchema>;
export type ScopeRules = z.output<typeof ScopeRulesSchema>;
export type SessionApprovals = z.output<typeof SessionApprovalsSchema>;
export type PermissionsView = z.output<typeof PermissionsViewSchema>;
export type RuleProbe = z.output<typeof RuleProbeSchema>;
export type RuleCheck = z.output<typeof RuleCheckSchema>;
