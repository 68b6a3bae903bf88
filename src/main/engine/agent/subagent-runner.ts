import { randomBytes } from "node:crypto";
import type { Engine } from "../engine.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { PermissionRule } from "../policy/permission-rule.ts";
import type { Ruleset } from "../policy/ruleset.ts";
import type { Session } from "../session/session.ts";
import {
  MAX_BACKGROUND_TASKS,
  type TaskHost,
  type TaskRequest,
  type TaskResult,
} from "../tools/task-host.ts";
import { loadAgentCatalog, type AgentCatalog } from "./agent-catalog.ts";
import { DEFAULT_BUDGETS, type AgentManifest } from "./agent-manifest.ts";
import { loadModelSettings } from "./model-settings.ts";
import { formatModelSpec } from "./model-spec.ts";
import type { ResolvedModel } from "./provider-registry.ts";
import type { RunBudget } from "./run-budget.ts";
import type { AgentRunResult, RunAgentOptions } from "./agent-run.ts";
import { editsFiles, taskStatus } from "./task-status.ts";
import { TaskReport } from "./task-report.ts";
import type { ToolVisibility } from "./tool-visibility.ts";
import { errorMessage } from "../errors/error-message.ts";

/** How deep tasks nest: a run this many tasks below the first one cannot start another. */
const MAX_TASK_DEPTH = 3;

/** A manifest-scope rule of a task's session, named by the agent it comes from. */
type SessionRule = PermissionRule & { source: string };

/** How a task's run descends from the run that started it. */
export interface TaskLineage {
  parentSessionId: string;
  /** 1 for a task of the first run, 2 for a task of that task, … */
  depth: number;
  /** The child session's manifest rules: every deny of the agents above, then its agent's own rules. */
  sessionRules: SessionRule[];
  /** The denies of the agents above, handed further down. */
  inheritedDenies: SessionRule[];
  /** What the parent may see: the child sees no more. */
  visibility: ToolVisibility;
  /** The parent's budget: the child's calls must fit it and count against it. */
  budget: RunBudget;
  /** The parent session's rules: the child's calls are judged by them too (the stricter wins). */
  ceiling: Ruleset;
}

/** What the delegating run was given by its host, passed on to every task as is. */
type ChildRunSettings = Pick<
  RunAgentOptions,
  | "approver"
  | "asker"
  | "onEvent"
  | "signal"
  | "toolStops"
  | "contextTokens"
  | "instructions"
  | "flushIntervalMs"
  | "resolveModel"
  | "agents"
>;

/** Everything of the delegating run a task inherits. */
interface TaskScope {
  engine: Engine;
  session: Session;
  /** The run's agent, its budgets already clamped when the run is itself a task. */
  agent: AgentManifest;
  model: ResolvedModel;
  visibility: ToolVisibility;
  budget: RunBudget;
  /** The run's own signal: it aborts when the run is aborted. */
  signal: AbortSignal;
  /** Model steps the run has left after the one in progress. */
  roundsLeft(): number;
  depth: number;
  inheritedDenies: readonly SessionRule[];
  /** The delegating run's own options: its host's approver, asker, events, signal… */
  settings: ChildRunSettings;
  /** Runs the child (run-agent.ts passes itself, so this file does not import it). */
  runChild(options: RunAgentOptions, lineage: TaskLineage): Promise<AgentRunResult>;
}

/** A task's id is its child session's id: hosts open it like any session (`lathe run --resume`). */
function newTaskId(): string {
  return `t-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

function messageOf(err: unknown): string {
  return errorMessage(err);
}

function denies(agent: AgentManifest, source: string): SessionRule[] {
  return agent.permissions.filter((r) => r.action === "deny").map((r) => ({ ...r, source }));
}

/**
 * The `task` tool's work for one agent run (attached to its session while it runs): it starts
 * a child run in its own persistent session, linked to this one, that inherits every deny of
 * this run (manifest rules and hidden tools), its approver, asker and mode, and budgets clamped
 * to what this run has left. Child events reach the host as `task` events.
 */
export class SubagentRunner implements TaskHost {
  private readonly scope: TaskScope;
  private catalog: Promise<AgentCatalog> | undefined;
  private readonly children: Array<{ background: boolean; done: Promise<TaskResult> }> = [];

  constructor(scope: TaskScope) {
    this.scope = scope;
  }

  private async childAgent(id: string | undefined): Promise<AgentManifest> {
    const { scope } = this;
    if (id === undefined || id === scope.agent.id) return scope.agent;
    this.catalog ??= scope.settings.agents
      ? Promise.resolve(scope.settings.agents)
      : loadAgentCatalog({
          root: scope.engine.root,
          latheHome: scope.engine.latheHome,
          projectTrusted: scope.engine.policy.projectTrusted,
        });
    try {
      return (await this.catalog).get(id);
    } catch (err) {
      if (!LatheError.isInstance(err)) throw err;
      throw new ToolCallError(`${err.message} Or leave out agent to run the task with your own agent.`);
    }
  }

  private async childModel(agent: AgentManifest): Promise<ResolvedModel> {
    const { scope } = this;
    const spec = agent.model;
    if (spec === undefined || spec === formatModelSpec(scope.model.spec)) return scope.model;
    try {
      if (scope.settings.resolveModel) return await scope.settings.resolveModel(spec);
      const { defaultProviderRegistry } = await import("./default-providers.ts");
      const settings = loadModelSettings({
        root: scope.engine.root,
        latheHome: scope.engine.latheHome,
        projectTrusted: scope.engine.policy.projectTrusted,
      });
      return await defaultProviderRegistry().resolve(spec, { providers: settings.providers });
    } catch (err) {
      throw new ToolCallError(
        `Agent "${agent.id}" runs on ${spec}, which cannot be used here: ${messageOf(err)} Pick another agent, or leave out agent to run the task with your own.`,
      );
    }
  }

  async start(request: TaskRequest, callSignal: AbortSignal): Promise<TaskResult> {
    const { scope } = this;
    if (scope.depth >= MAX_TASK_DEPTH) {
      throw new ToolCallError(
        `Tasks nest at most ${MAX_TASK_DEPTH} deep, and this run is already a task ${scope.depth} level${scope.depth === 1 ? "" : "s"} down, so it cannot start another. Do this part of the work yourself with the tools you have.`,
        "task_depth",
      );
    }
    if (request.background) {
      const running = scope.engine.tasks.runningOf(scope.session.id);
      if (running.length >= MAX_BACKGROUND_TASKS) {
        throw new ToolCallError(
          `${running.length} background tasks of this session are still running (${running.join(", ")}), and at most ${MAX_BACKGROUND_TASKS} run at once. Wait for one with task {"task_id": "<id>"} before starting another, or leave out background to run this one now.`,
          "task_fan_out",
        );
      }
    }
    const rounds = scope.roundsLeft();
    if (rounds < 1) {
      throw new ToolCallError(
        `Budget exhausted: this is the last model step agent "${scope.agent.id}" may take (budgets.maxRounds = ${scope.agent.budgets.maxRounds}), so a task would have no steps left to work in. Answer with what you have, and say what is left to do.`,
      );
    }
    const agent = await this.childAgent(request.agent);
    const model = await this.childModel(agent);
    const parent = scope.session;
    const taskId = newTaskId();
    const { toolCallId } = request;
    if (parent.persistent) {
      scope.engine.conversations().linkChild(parent.id, taskId, {
        description: request.description,
        ...(toolCallId !== undefined ? { toolCallId } : {}),
      });
    }
    const inheritedDenies = [
      ...scope.inheritedDenies,
      ...denies(
        scope.agent,
        `the manifest of agent "${scope.agent.id}" (${scope.agent.source}), which started this task: a parent's deny binds its tasks`,
      ),
    ];
    const ownRules = agent.permissions.map((r) => ({
      ...r,
      source: `the manifest of agent "${agent.id}" (${agent.source})`,
    }));
    const lineage: TaskLineage = {
      parentSessionId: parent.id,
      depth: scope.depth + 1,
      sessionRules: [...inheritedDenies, ...ownRules],
      inheritedDenies,
      visibility: scope.visibility,
      budget: scope.budget,
      ceiling: parent.ruleset,
    };
    const outputTokens = (a: AgentManifest): number =>
      a.budgets.maxOutputTokens ?? DEFAULT_BUDGETS.maxOutputTokens;
    const childAgent: AgentManifest = {
      ...agent,
      budgets: {
        ...agent.budgets,
        maxRounds: Math.min(agent.budgets.maxRounds, rounds),
        maxOutputTokens: Math.min(outputTokens(agent), outputTokens(scope.agent)),
      },
    };
    const report = new TaskReport(editsFiles(scope.engine));
    const { settings } = scope;
    const agents = this.catalog ? await this.catalog : settings.agents;
    // A synchronous task stops with the call; a background one with the run (or the host's
    // signal). Either stops alone too: the person's Stop on it in a host's task list.
    const own = new AbortController();
    const signal = AbortSignal.any([
      own.signal,
      ...(request.background ? [scope.signal, ...(settings.signal ? [settings.signal] : [])] : [callSignal]),
    ]);
    const done = scope
      .runChild(
        {
          engine: scope.engine,
          agent: childAgent,
          model,
          prompt: request.prompt,
          ...(parent.persistent ? { sessionId: taskId } : {}),
          persist: parent.persistent,
          mode: parent.mode,
          ...(settings.approver ? { approver: settings.approver } : {}),
          ...(settings.asker ? { asker: settings.asker } : {}),
          signal,
          ...(settings.toolStops ? { toolStops: settings.toolStops } : {}),
          onEvent: (event) => {
            report.add(event);
            settings.onEvent?.({
              type: "task",
              taskId,
              ...(toolCallId !== undefined ? { toolCallId } : {}),
              event,
            });
          },
          ...(model === scope.model && settings.contextTokens !== undefined
            ? { contextTokens: settings.contextTokens }
            : {}),
          ...(settings.instructions ? { instructions: settings.instructions } : {}),
          ...(settings.flushIntervalMs !== undefined ? { flushIntervalMs: settings.flushIntervalMs } : {}),
          ...(settings.resolveModel ? { resolveModel: settings.resolveModel } : {}),
          ...(agents ? { agents } : {}),
        },
        lineage,
      )
      .then(
        (result): TaskResult => {
          const r = report.result(taskId, result.status);
          return {
            ...r,
            status: result.status,
            summary: result.text,
            ...(result.error !== undefined ? { error: result.error } : {}),
          };
        },
        (err: unknown): TaskResult => ({
          ...report.result(taskId, "failed"),
          status: "failed",
          error: `The task could not run: ${messageOf(err)}`,
        }),
      );
    scope.engine.tasks.add(
      taskId,
      {
        parentSessionId: parent.id,
        description: request.description,
        agent: agent.id,
        background: request.background,
        stop: (reason) => own.abort(reason),
      },
      done,
    );
    this.children.push({ background: request.background, done });
    if (request.background) return { task_id: taskId, status: "running" };
    return done;
  }

  async collect(taskId: string): Promise<TaskResult> {
    const { scope } = this;
    const entry = scope.engine.tasks.get(taskId);
    const mine =
      entry?.parentSessionId === scope.session.id ||
      (scope.session.persistent &&
        scope.engine
          .conversations()
          .children(scope.session.id)
          .some((c) => c.childSessionId === taskId));
    if (!mine) {
      throw new ToolCallError(
        `There is no task "${taskId}" started in this session. Use the task_id that a task call with background: true returned.`,
      );
    }
    if (entry) return entry.done;
    return taskStatus(scope.engine, taskId) ?? { task_id: taskId, status: "interrupted" };
  }

  /** Resolves once the synchronous tasks (and after an abort, every task) of this run have stopped. */
  async stopped(aborted: boolean): Promise<void> {
    await Promise.all(this.children.filter((c) => aborted || !c.background).map((c) => c.done));
  }
}
