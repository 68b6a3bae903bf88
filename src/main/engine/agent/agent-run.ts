import type { Engine } from "../engine.ts";
import type { Approver } from "../policy/approval-request.ts";
import type { ApprovalMode } from "../config/lathe-settings.ts";
import type { Asker } from "../tools/question-request.ts";
import type { AgentCatalog } from "./agent-catalog.ts";
import type { AgentManifest } from "./agent-manifest.ts";
import type { ResolvedModel } from "./provider-registry.ts";
import type { RunEvent, RunStatus, RunUsage } from "./run-events.ts";
import type { ToolCallStops } from "./tool-call-stops.ts";

// What `runAgent` (run-agent.ts) is given and what it resolves to; subagent-runner.ts hands
// them on to a task's run without importing the function that runs it.

export interface RunAgentOptions {
  /** An engine created for this agent (see `createAgentEngine`), so its permission rules apply. */
  engine: Engine;
  agent: AgentManifest;
  model: ResolvedModel;
  prompt: string;
  /** The session to continue (its messages are the history) or to start under this id; a new id otherwise. */
  sessionId?: string;
  mode?: ApprovalMode;
  /** Who answers approvals; without one `ask` means deny. */
  approver?: Approver;
  /** Who answers the question tool; without one a question fails with a fixed message (a `question-refused` event). */
  asker?: Asker;
  signal?: AbortSignal;
  /** Where the host stops one tool call alone, by the model's call id (its tasks' calls too). */
  toolStops?: ToolCallStops;
  onEvent?(event: RunEvent): void;
  /** Record the conversation in the store (default true); false runs in an ephemeral session, its conversation kept in memory for the run alone (so it can still be compacted). */
  persist?: boolean;
  /**
   * The model's context window in tokens (default: the model's own figure, else the engine's
   * default): tool definitions beyond a share of it are deferred until tool_search loads them.
   */
  contextTokens?: number;
  /** Extra system prompt sections after the agent's own (e.g. the skills list). */
  instructions?: readonly string[];
  /** How long run events may wait in memory before they are written (default 100 ms). */
  flushIntervalMs?: number;
  /**
   * How a task whose agent names another model gets it (default: Lathe's providers with the
   * folder's model settings, keys from the environment). Tasks whose agent names no model run on
   * this run's model.
   */
  resolveModel?: (spec: string) => Promise<ResolvedModel>;
  /** The agents the `task` tool may start (default: the engine folder's catalog, read on first use). */
  agents?: AgentCatalog;
  /**
   * Check the model (`model.preflight`) after the run starts and before its first request: what
   * the check notices comes as `notice` events, and a failed check fails the run with its message.
   * For hosts that did not check it before (the app; `lathe run` checks in `setupAgentRun`, before
   * a session exists).
   */
  preflight?: boolean;
  /**
   * What the host learned while it set the run up (how an old session's model path was read),
   * said as `notice` events right after the run starts, so they are recorded with its events.
   * Not passed on to tasks.
   */
  notices?: readonly string[];
}

/** How one agent run (a turn) ended: its ids, status, the text the model wrote, its usage. */
export interface AgentRunResult {
  sessionId: string;
  runId: string;
  status: RunStatus;
  /** All text the model wrote in this run. */
  text: string;
  steps: number;
  usage: RunUsage;
  /** For a failed run: what went wrong and what to do. */
  error?: string;
  /**
   * The run failed because the conversation no longer fits the model's context: the session
   * resumed as it is fails the same way (start a new one, or rewind this one).
   */
  contextFull?: boolean;
  /** The run failed because the model's connection closed mid-answer: the session goes on as it is. */
  connectionDropped?: boolean;
}
