// The contract between the renderer and whatever hosts the engine (Electron main over IPC, or
// `lathe serve` over a WebSocket). Every channel is declared here once, with the zod schemas of
// its request and response; both sides are written against these names and shapes only.
import { z } from "zod";
import {
  ExtensionsStatusSchema,
  McpLogSchema,
  PluginLogSchema,
  McpPreviewSchema,
  McpServerFormSchema,
  McpServerNameSchema,
  PluginLayerSchema,
  PluginHashSchema,
  PluginNameSchema,
} from "./extensions-schemas.ts";
import type { PushEvent, PushOf } from "./push-events.ts";
import {
  AgentListSchema,
  ChatAbortSchema,
  ChatHistorySchema,
  ChatSendSchema,
  ChatStartedSchema,
  ModelListSchema,
  SessionIdSchema,
} from "./chat-schemas.ts";
import {
  CheckpointListRequestSchema,
  CheckpointPreviewRequestSchema,
  CheckpointRestoreRequestSchema,
  CheckpointSummarySchema,
  RestoreOutcomeSchema,
  RestorePlanSchema,
  RewindOutcomeSchema,
  RewindPlanSchema,
  RewindPreviewRequestSchema,
  RewindRequestSchema,
} from "./checkpoint-schemas.ts";
import { EnvelopeSchema } from "./envelope-schema.ts";
import { QuestionResponseSchema } from "./question-schemas.ts";
import { TaskStopSchema, TaskStoppedSchema } from "./task-schemas.ts";
import { SecretRemoveSchema, SecretSetSchema, SecretsStatusSchema } from "./secret-schemas.ts";
import { ToolOriginSchema } from "./tool-origin.ts";
import {
  SessionDeleteSchema,
  SessionDeletedSchema,
  SessionListRequestSchema,
  SessionListSchema,
  SessionRenameSchema,
  SessionSummarySchema,
} from "./session-schemas.ts";
import { ProjectOpenSchema, RecentProjectsSchema } from "./project-schemas.ts";
import { TrustReviewSchema } from "./trust-review-schema.ts";
import { AuditPageSchema, AuditQuerySchema } from "./audit-schemas.ts";
import { AddGgufSchema, ModelCatalogSchema, ProjectModelSchema } from "./model-catalog-schemas.ts";
import { UnsandboxedMcpAnswerSchema } from "./mcp-unsandboxed-schemas.ts";
import {
  CheckRulesSchema,
  PermissionsViewSchema,
  RevokeApprovalsSchema,
  RuleCheckSchema,
  SaveRulesSchema,
  SetApprovalsSchema,
} from "./permission-schemas.ts";
import { SandboxReportSchema } from "./sandbox-schemas.ts";

const ToolKindSchema = z.enum(["read", "edit", "search", "execute", "fetch", "think", "other"]);

const ArgPatternSchema = z.union([
  z.string(),
  z.object({ wildcard: z.literal(true) }),
  z.object({ prefix: z.string() }),
]);

const RequirementSetSchema = z.object({
  fs: z.object({ read: z.array(z.string()).optional(), write: z.array(z.string()).optional() }).optional(),
  net: z.object({ hosts: z.array(z.string()).optional() }).optional(),
  shell: z.array(z.object({ cmd: z.string(), args: z.array(ArgPatternSchema).optional() })).optional(),
  capabilities: z.array(z.string()).optional(),
});

export const ToolInfoSchema = z.object({
  id: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  requires: RequirementSetSchema,
  readOnly: z.boolean(),
  gated: z.boolean(),
  kind: ToolKindSchema,
  origin: ToolOriginSchema,
  /** The model starts with the name only; `tool_search` loads the rest. */
  deferred: z.boolean(),
  /** Why, when it is: the tool asks to be (`defer: true`), or it is past the tool-definition budget. */
  deferredBy: z.enum(["config", "budget"]).optional(),
  /** Implementations of the same name in earlier layers that this one hides, earliest first. */
  shadows: z.array(ToolOriginSchema),
});

/** How a person answers an approval prompt: this call, every call with this key this session, or no. */
export const ApprovalAnswerSchema = z.enum(["once", "always", "reject"]);

/** The folder the host works in, whether the user trusts it, and what it must tell them once. */
export const ProjectStatusSchema = z.strictObject({
  root: z.string(),
  trusted: z.boolean(),
  notices: z.array(z.string()),
});

/**
 * Every channel: its name, and the schemas of what goes in and what comes back. The renderer's
 * client (`LatheApi`, `createLatheApi`) is derived from this table: `"tools.list"` is
 * `api.tools.list()`, or `api.<clientGroup>.list()` for a channel that names its `clientGroup`.
 */
export const channels = {
  /** The registry, every layer, with each tool's origin. */
  "tools.list": {
    request: z.strictObject({}).optional(),
    response: z.array(ToolInfoSchema),
  },
  /** One call through the engine's whole pipeline; `args` is validated by the engine itself. */
  "tools.call": {
    request: z.strictObject({ toolId: z.string().min(1).max(256), args: z.unknown().optional() }),
    response: EnvelopeSchema,
  },
  /**
   * Stop the calls this UI started through `tools.call` that are still running (the Tools view's
   * Stop): each answers with its error envelope. `stopped` counts them (0: none was running).
   */
  "tools.stop": {
    request: z.strictObject({}).optional(),
    response: z.strictObject({ stopped: z.number().int().nonnegative() }),
  },
  /** Answer the approval prompt on screen; an unknown or already settled id is refused. */
  "approval.respond": {
    clientGroup: "approvals",
    request: z.strictObject({ id: z.string().min(1).max(200), answer: ApprovalAnswerSchema }),
    response: z.strictObject({ id: z.string(), answer: ApprovalAnswerSchema }),
  },
  /** The project's root, trust and notices (also pushed as `project.status` when it changes). */
  "project.status": {
    request: z.strictObject({}).optional(),
    response: ProjectStatusSchema,
  },
  /**
   * What trusting the project would turn on, for the trust dialog (the same description `lathe
   * trust` prints): its rules, hooks and commands, and per plugin and MCP server what it requires
   * (paths, hosts, commands), `gated: false`, what it shadows, warnings and load errors.
   */
  "project.review": {
    request: z.strictObject({}).optional(),
    response: TrustReviewSchema,
  },
  /**
   * Trust the project: its settings then apply in full; the host recreates its engine and session.
   * `grants` is the review's (the dialog's): if the folder grants something else by now, nothing
   * is trusted and the answer says to review it again.
   */
  "project.trust": {
    request: z.strictObject({ grants: z.string().max(128).optional() }).optional(),
    response: ProjectStatusSchema,
  },
  /** Plugins, MCP servers and what could not load (also pushed as `extensions.changed`). */
  "extensions.status": {
    request: z.strictObject({}).optional(),
    response: ExtensionsStatusSchema,
  },
  /** Turn a plugin off or on: saved in the user's `disabledPlugins`, applied at once. */
  "plugins.setEnabled": {
    request: z.strictObject({ layer: PluginLayerSchema, name: PluginNameSchema, enabled: z.boolean() }),
    response: ExtensionsStatusSchema,
  },
  /**
   * Approve a trusted project's plugin that was added or changed since the trust, as the person
   * saw it: `hash` is the content they reviewed; if the folder changed again, nothing is approved.
   */
  "plugins.approve": {
    request: z.strictObject({ name: PluginNameSchema, hash: PluginHashSchema }),
    response: ExtensionsStatusSchema,
  },
  /**
   * The last lines of a plugin's log file (`$LATHE_HOME/logs/plugins/<name>.log`): its runtime.log
   * and console lines, and Lathe's notes — isolate restarts with their reason, failed calls with the
   * file and line, failed starts. The panel polls it while the log is open.
   */
  "plugins.log": {
    request: z.strictObject({
      layer: PluginLayerSchema,
      name: PluginNameSchema,
      lines: z.number().int().min(1).max(2000).default(200),
    }),
    response: PluginLogSchema,
  },
  /** The exact command a server would start with, to show before it is saved and started. */
  "mcp.preview": {
    request: z.strictObject({ name: McpServerNameSchema, server: McpServerFormSchema }),
    response: McpPreviewSchema,
  },
  /**
   * Add or edit a server in the user's settings and restart the engine with it. The request
   * carries the digest of what the person confirmed (from `mcp.preview`); if it is not what
   * would run now, secret values included, nothing is saved.
   */
  "mcp.save": {
    request: z.strictObject({
      name: McpServerNameSchema,
      server: McpServerFormSchema,
      mode: z.enum(["add", "edit"]),
      confirmedDigest: z.string().regex(/^[0-9a-f]{64}$/),
    }),
    response: ExtensionsStatusSchema,
  },
  /** Remove a server from the user's settings (and stop it). */
  "mcp.remove": {
    request: z.strictObject({ name: McpServerNameSchema }),
    response: ExtensionsStatusSchema,
  },
  /** Set or clear `"disabled"` on a server in the user's settings. */
  "mcp.setEnabled": {
    request: z.strictObject({ name: McpServerNameSchema, enabled: z.boolean() }),
    response: ExtensionsStatusSchema,
  },
  /** Stop a running server and start it again. */
  "mcp.restart": {
    request: z.strictObject({ name: McpServerNameSchema }),
    response: ExtensionsStatusSchema,
  },
  /** The last lines of a server's log: its stderr and Lathe's notes about it. */
  "mcp.log": {
    request: z.strictObject({
      name: McpServerNameSchema,
      lines: z.number().int().min(1).max(2000).default(200),
    }),
    response: McpLogSchema,
  },
  /**
   * Start an agent run on a prompt in this UI's engine; its events follow as `run.event` pushes.
   * One run at a time per session: a send to a session whose run is going on is refused.
   */
  "chat.send": {
    request: ChatSendSchema,
    response: ChatStartedSchema,
  },
  /** Stop a run (the model stream and every running tool); an unknown or finished run is refused. */
  "chat.abort": {
    request: ChatAbortSchema,
    response: z.strictObject({ runId: z.string(), aborted: z.literal(true) }),
  },
  /** A recorded session's turns and todo list, to redraw it (after a reload, say). */
  "chat.history": {
    request: z.strictObject({ sessionId: SessionIdSchema }),
    response: ChatHistorySchema,
  },
  /** The models the configured providers offer, for the model picker; endpoints that fail become notices. */
  "models.list": {
    request: z.strictObject({}).optional(),
    response: ModelListSchema,
  },
  /** The agents a run can use (built-in, the user's, the trusted project's), for the agent picker. */
  "agents.list": {
    request: z.strictObject({}).optional(),
    response: AgentListSchema,
  },
  /** Answer (or dismiss) the question dialog on screen; answers that do not fit its questions are refused. */
  "question.respond": {
    clientGroup: "questions",
    request: QuestionResponseSchema,
    response: z.strictObject({ id: z.string(), outcome: z.enum(["answered", "dismissed"]) }),
  },
  /** Which cloud provider keys are kept in the OS keychain or set in the environment; never a value. */
  "secrets.status": {
    request: z.strictObject({}).optional(),
    response: SecretsStatusSchema,
  },
  /**
   * Keep a provider key in the OS keychain (encrypted; never written in plain text) and hand it to
   * the next run, unless the user's own environment variable is set. Refused without a keychain.
   */
  "secrets.set": {
    request: SecretSetSchema,
    response: SecretsStatusSchema,
  },
  /** Forget a stored key; the variable Lathe had set from it goes too (never one the user set). */
  "secrets.remove": {
    request: SecretRemoveSchema,
    response: SecretsStatusSchema,
  },
  /** This folder's recorded chat sessions, newest first (tasks point at their parent); `query` searches them. */
  "sessions.list": {
    request: SessionListRequestSchema,
    response: SessionListSchema,
  },
  /** Name a session; an empty title brings back the one from its first prompt. */
  "sessions.rename": {
    request: SessionRenameSchema,
    response: SessionSummarySchema,
  },
  /** Delete a session and the task sessions it started, with their messages; refused while a run goes on in it. */
  "sessions.delete": {
    request: SessionDeleteSchema,
    response: SessionDeletedSchema,
  },
  /**
   * Open another folder: the host's engine moves to it (refused while a run goes on) and it joins
   * the recent projects. A path that does not exist or is not a folder is refused with the reason.
   */
  "project.open": {
    clientGroup: "projects",
    request: ProjectOpenSchema,
    response: ProjectStatusSchema,
  },
  /** The folders opened lately, most recent first (from `$LATHE_HOME/recent-projects.json`). */
  "project.recent": {
    clientGroup: "projects",
    request: z.strictObject({}).optional(),
    response: RecentProjectsSchema,
  },
  /** Stop one running tool call of a run (its card's Stop); the run goes on and the model reads the stop. */
  "chat.stopTool": {
    request: z.strictObject({ runId: z.string().min(1).max(200), toolCallId: z.string().min(1).max(200) }),
    response: z.strictObject({ runId: z.string(), toolCallId: z.string(), stopped: z.literal(true) }),
  },
  /**
   * Stop a background task (its model stream, its tool calls and their processes, and the tasks it
   * started), whether or not the run that started it goes on; one not running is refused.
   */
  "chat.stopTask": {
    request: TaskStopSchema,
    response: TaskStoppedSchema,
  },
  /** A session's checkpoints (one per call that changed files, plus restores), oldest first. */
  "checkpoints.list": {
    request: CheckpointListRequestSchema,
    response: z.array(CheckpointSummarySchema),
  },
  /** What restoring a checkpoint would do, path by path, with conflicts; changes nothing. */
  "checkpoints.preview": {
    request: CheckpointPreviewRequestSchema,
    response: RestorePlanSchema,
  },
  /**
   * Restore a checkpoint. A conflict without `force` or a choice for its path changes nothing:
   * the answer has `applied: false` and the paths to ask the person about in `blocked`.
   */
  "checkpoints.restore": {
    request: CheckpointRestoreRequestSchema,
    response: RestoreOutcomeSchema,
  },
  /** What rewinding a session to before a prompt would do: files (with conflicts) and conversation. */
  "checkpoints.previewRewind": {
    request: RewindPreviewRequestSchema,
    response: RewindPlanSchema,
  },
  /** Rewind a session to before a prompt: its files, then its conversation; refused while it runs. */
  "checkpoints.rewind": {
    request: RewindRequestSchema,
    response: RewindOutcomeSchema,
  },
  /** A page of the audit trail, newest first: every tool call with its decision chain, filtered. */
  "audit.query": {
    request: AuditQuerySchema,
    response: AuditPageSchema,
  },
  /**
   * What the model picker offers, detected now: local servers (where settings put them, else
   * their usual ports) with their models, GGUF files in `$LATHE_HOME/models`, cloud providers with
   * a key; and this folder's remembered model.
   */
  "models.catalog": {
    request: z.strictObject({}).optional(),
    response: ModelCatalogSchema,
  },
  /** Remember the model picked for this folder (null forgets it); new chats here start with it. */
  "models.setProjectModel": {
    request: ProjectModelSchema,
    response: ModelCatalogSchema,
  },
  /** Add a GGUF file to `$LATHE_HOME/models` (linked, or copied where links cannot be made). */
  "models.addGguf": {
    request: AddGgufSchema,
    response: ModelCatalogSchema,
  },
  /** The approval mode, the rules of each scope, and the sessions' "always" answers. */
  "permissions.get": {
    request: z.strictObject({}).optional(),
    response: PermissionsViewSchema,
  },
  /**
   * Replace the rules of the user's or the project's settings file (validated; a file that is
   * not valid is never written over) and reload the engine with them.
   */
  "permissions.saveRules": {
    request: SaveRulesSchema,
    response: PermissionsViewSchema,
  },
  /** Set the user's approval mode and allowlist, and reload the engine with them. */
  "permissions.setApprovals": {
    request: SetApprovalsSchema,
    response: PermissionsViewSchema,
  },
  /** Forget one or every "always" answer of a session (refused while a run goes on in it). */
  "permissions.revoke": {
    request: RevokeApprovalsSchema,
    response: PermissionsViewSchema,
  },
  /** Check rules being edited: invalid rows, conflicts between scopes, and which rule decides a probe call. */
  "permissions.check": {
    request: CheckRulesSchema,
    response: RuleCheckSchema,
  },
  /** Which walls stand (the parser policy, the OS sandbox), from the same check as `lathe doctor`. */
  "sandbox.report": {
    request: z.strictObject({}).optional(),
    response: SandboxReportSchema,
  },
  /** Answer the dialog before a stdio MCP server starts without the OS sandbox. */
  "mcp.approveUnsandboxed": {
    request: UnsandboxedMcpAnswerSchema,
    response: z.strictObject({ id: z.string(), approved: z.boolean() }),
  },
} as const;

export type Channel = keyof typeof channels;
export const CHANNELS = Object.keys(channels) as Channel[];

export type RequestOf<C extends Channel> = z.input<(typeof channels)[C]["request"]>;
export type ResponseOf<C extends Channel> = z.output<(typeof channels)[C]["response"]>;

export type ToolKind = z.output<typeof ToolKindSchema>;
export type ToolOrigin = z.output<typeof ToolOriginSchema>;
export type ToolInfo = z.output<typeof ToolInfoSchema>;
export type Envelope = z.output<typeof EnvelopeSchema>;
export type ApprovalAnswer = z.output<typeof ApprovalAnswerSchema>;
export type ProjectStatus = z.output<typeof ProjectStatusSchema>;

/** What every channel answers: the handler's value, or a message that says what went wrong. */
export type ApiResult<T> = { ok: true; data: T } | { ok: false; error: { message: string } };

export const ApiResultSchema = z.union([
  z.strictObject({ ok: z.literal(true), data: z.unknown() }),
  z.strictObject({ ok: z.literal(false), error: z.strictObject({ message: z.string() }) }),
]);

export function isChannel(value: unknown): value is Channel {
  return typeof value === "string" && Object.hasOwn(channels, value);
}

type ChannelTable = typeof channels;

/** The client group a channel sits in: its `clientGroup`, else its name up to the dot. */
type GroupOf<C extends Channel> = C extends Channel
  ? ChannelTable[C] extends { clientGroup: infer G extends string }
    ? G
    : C extends `${infer G}.${string}`
      ? G
      : never
  : never;

/** The client method of a channel: its name after the dot. */
type MethodOf<C extends Channel> = C extends `${string}.${infer M}` ? M : never;

/** One channel as a client method; a channel whose request may be left out takes none. */
type ClientMethod<C extends Channel> =
  undefined extends RequestOf<C>
    ? (request?: RequestOf<C>) => Promise<ApiResult<ResponseOf<C>>>
    : (request: RequestOf<C>) => Promise<ApiResult<ResponseOf<C>>>;

/** Where a channel sits in the client: `[group, method]` (what `GroupOf` and `MethodOf` say of its type). */
export function clientPath(channel: Channel): [group: string, method: string] {
  const entry = channels[channel];
  const dot = channel.indexOf(".");
  return ["clientGroup" in entry ? entry.clientGroup : channel.slice(0, dot), channel.slice(dot + 1)];
}

/** The API the renderer sees as `window.lathe`, whichever transport carries it: every channel, by group. */
export type LatheApi = {
  [G in GroupOf<Channel>]: { [C in Channel as GroupOf<C> extends G ? MethodOf<C> : never]: ClientMethod<C> };
} & {
  /** Listen to one kind of push from the host; the returned function stops listening. */
  on<E extends PushEvent>(event: E, listener: (payload: PushOf<E>) => void): () => void;
};
