import { EventEmitter } from "node:events";
import type { Checkpoint } from "./checkpoints/checkpoint-store.ts";
import type { PluginLogEntry } from "./plugins/plugin-log-files.ts";
import type { StageRecord } from "./tools/call-decision.ts";
import type { CallPhase } from "./tools/call-phase.ts";
import type { ToolOrigin } from "./tools/contract.ts";
import type { Envelope } from "./tools/envelope.ts";
import type { TodoItem } from "./tools/todo-list.ts";

export interface ToolInvocationStarted {
  callId: string;
  sessionId: string;
  toolId: string;
  origin: ToolOrigin | undefined;
  /** Arguments with secrets redacted. */
  args: unknown;
  startedAt: number;
}

export interface ToolInvocationFinished extends ToolInvocationStarted {
  envelope: Envelope;
  /** Each decision on the way: capability, rule, watchdog, approval. */
  decisions: readonly StageRecord[];
}

/** A started call waits (queued, awaiting approval) or, having waited, runs: see CallPhase. */
export interface ToolInvocationPhase {
  callId: string;
  sessionId: string;
  toolId: string;
  phase: CallPhase;
}

/** Events the engine emits to hosts. */
interface EngineEventMap {
  ToolInvocationStarted: [ToolInvocationStarted];
  ToolInvocationPhase: [ToolInvocationPhase];
  ToolInvocationSucceeded: [ToolInvocationFinished];
  ToolInvocationFailed: [ToolInvocationFinished];
  /** A session's todo list was replaced (by the todo tool): the whole new list. */
  TodosChanged: [{ sessionId: string; todos: TodoItem[] }];
  /**
   * A task (subagent) started or ended under a session: its own, or one a task of it started.
   * `engine.tasks.background(sessionId)` lists that session's background tasks as they are now.
   */
  TasksChanged: [{ sessionId: string }];
  /** A checkpoint was recorded: a call changed files, or a restore or rewind replaced some. */
  CheckpointRecorded: [Checkpoint];
  /** A call's changes could not be checkpointed (e.g. the workspace is too large to scan): hosts tell the person. */
  CheckpointSkipped: [{ sessionId: string; toolId: string; callId: string; reason: string }];
  /**
   * A plugin logged a line (runtime.log, console), or Lathe noted something about it: an isolate
   * restart with its reason, a failed start, a failed call. Also in `$LATHE_HOME/logs/plugins/`.
   */
  PluginLog: [PluginLogEntry];
  /**
   * The audit trail cannot be written (a full disk, a read-only file): no tool call runs until it
   * can be again. Said once per such spell; `error` says what to do. Hosts tell the person.
   */
  AuditFailed: [{ error: unknown }];
  /** Something failed that is the runtime's fault, not the model's: hosts log it. */
  "internal-error": [{ toolId: string; sessionId: string; error: unknown }];
}

export class EngineEvents extends EventEmitter<EngineEventMap> {}
