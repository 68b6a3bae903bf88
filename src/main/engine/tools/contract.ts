import type { FsCapability } from "../capability/fs-capability.ts";
import type { FileCheckpoint } from "../checkpoints/file-checkpoint.ts";
import type { ProcessSandbox } from "../sandbox/process-sandbox.ts";
import type { CallPlan, PlannedAccess, ResolvedAccess, ResolvedPlan } from "./call-plan.ts";
import type { RequirementSet } from "./requirement-set.ts";
import type { ToolSession } from "./tool-session.ts";
import type { LeftOut } from "./truncation.ts";

/** The ACP tool kind: drives the icon and renderer a client shows for a call. */
export type ToolKind = "read" | "edit" | "search" | "execute" | "fetch" | "think" | "other";

/** Registry layers, earliest first; a later layer shadows an earlier one by flat name. */
export const LAYERS = ["builtin", "bundled", "global", "project"] as const;
export type Layer = (typeof LAYERS)[number];

export interface ToolOrigin {
  layer: Layer;
  kind: "builtin" | "plugin" | "mcp";
  /** Plugin folder name or MCP server name. */
  name?: string;
}

/** A JSON Schema object, as published to the model and validated with ajv. */
export type JsonSchema = Record<string, unknown>;

/** What `execute` receives: the only way a tool touches the system. */
export interface ToolRuntime {
  readonly signal: AbortSignal;
  /** This call's id, as in the engine's ToolInvocation events and the audit trail. */
  readonly callId?: string;
  /** The caller's id for this call (an agent's: the model's tool call id), when it gave one. */
  readonly correlationId?: string;
  readonly fs: FsCapability;
  /**
   * The call's plan as the capability check resolved it (canonical paths, in the plan's order,
   * and its folder): use these rather than resolving the arguments again. Empty for a tool
   * without a plan.
   */
  readonly resolved: ResolvedPlan;
  readonly session: ToolSession;
  /** Canonical (real) path of the workspace root. */
  readonly root: string;
  /**
   * The OS sandbox every process the tool starts must run in (when it is active; when not, the
   * policy has already made a person approve the call).
   */
  readonly sandbox: ProcessSandbox;
  /**
   * Put an access the tool decides on while running (a plugin's file, network or shell call)
   * through the same capability check, rules, watchdog and approval as a planned call. Resolves
   * to the checked access; throws ToolCallError (which becomes the error envelope) when refused.
   */
  authorize(access: PlannedAccess): Promise<ResolvedAccess>;
  /**
   * The same for several accesses decided together, with what cannot be seen through (a
   * plugin's shell command: the commands it runs, the files it reads and writes): one decision,
   * one approval under `approvalKey`. Resolves to the checked accesses, in order.
   */
  authorizePlan(plan: CallPlan, approvalKey: string): Promise<ResolvedAccess[]>;
  /**
   * Why a file a tool finds by itself (the walk of glob or grep) may not be read: the deny rule
   * it falls under for this tool or `fs.read`, or for the `read` tool, as a refusal would explain
   * it; undefined when none does (or no policy runs).
   */
  readDenied?(file: { absolute: string; display: string }): string | undefined;
  /**
   * The pattern of the `ask` rule a file a tool finds by itself falls under, when reading it
   * would need a person's yes in this session (not in yolo mode, nor where the allowlist lets
   * it through): a walk cannot ask about each file, so it leaves such a file out. Undefined when
   * no rule asks (or no policy runs).
   */
  readAsks?(file: { absolute: string; display: string }): string | undefined;
  /**
   * For a tool declaring `checkpoints: "reported"` in a session that keeps checkpoints: keep
   * what a file held before changing it, and say what it holds after (see file-checkpoint.ts).
   */
  readonly checkpoint?: FileCheckpoint;
}

/**
 * The result of cutting an oversized output: `data` is what the model sees (the head), and
 * `full` is the whole output written to the sidecar file.
 */
export interface Truncation<Data> {
  data: Data;
  full: string;
  /** How much `data` leaves out of `full`, for the note the envelope carries (see truncation.ts). */
  leftOut?: LeftOut;
}

/** The one contract every tool obeys: built-in, plugin or MCP. */
export interface ToolDefinition<Args = Record<string, unknown>, Data = unknown> {
  readonly id: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly requires: RequirementSet;
  /** Concurrency class: read-only calls run in parallel, the others one at a time. */
  readonly readOnly: boolean;
  /** Whether the approval stack runs at all for this tool. */
  readonly gated: boolean;
  readonly kind: ToolKind;
  readonly timeoutMs: number;
  /** A per-call timeout from the validated arguments (e.g. bash's `timeout_ms`), overriding `timeoutMs`. */
  callTimeoutMs?(args: Args): number;
  readonly enabled: boolean;
  /** Keep the schema out of the model's initial context; `tool_search` wires it in on demand. */
  readonly defer?: boolean;
  /**
   * How the workspace files a call changes are checkpointed, so they can be restored: "reported"
   * — the tool reports each change through `runtime.checkpoint` (write, edit); "scan" — the
   * workspace is scanned before and after the call (bash). Absent: the tool changes no files.
   */
  readonly checkpoints?: "reported" | "scan";
  /** A stable, human-readable approval key: deterministic, no timestamps, no secrets, no I/O. */
  deriveApprovalKey(args: Args): string;
  execute(args: Args, runtime: ToolRuntime): Promise<Data>;
  /**
   * What a call will touch (paths, commands, hosts), derived from its validated arguments before
   * it runs, so the capability check, the rules and the watchdog judge the real targets. May
   * resolve later (bash loads its shell parser on its first plan).
   */
  plan?(args: Args): CallPlan | Promise<CallPlan>;
  /** Cut an oversized result to its head, or return undefined when it fits. */
  truncate?(data: Data): Truncation<Data> | undefined;
}

/** Any tool, whatever its argument and data types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

/** What hosts list: the published part of a tool plus where it came from. */
export interface ToolInfo {
  id: string;
  description: string;
  parameters: JsonSchema;
  requires: RequirementSet;
  readOnly: boolean;
  gated: boolean;
  kind: ToolKind;
  origin: ToolOrigin;
  /** Whether the model starts with only the tool's name (`tool_search` loads the rest). */
  deferred: boolean;
  /** Why, when it is: it asks to be (`defer: true`), or the definitions past the budget. */
  deferredBy?: "config" | "budget";
  /** Implementations of the same name in earlier layers that this one hides, earliest first. */
  shadows: ToolOrigin[];
}
