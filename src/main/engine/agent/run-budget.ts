import type { AgentBudgets } from "./agent-manifest.ts";

/** What a run may still spend, given its budgets and (for a task) those of the runs above it. */
interface RemainingBudget {
  toolCalls: number;
  /** Calls left of the tools with a limit of their own. */
  perTool: Record<string, number>;
}

/**
 * Counts one run's tool calls against the agent's budgets. `take` is called once per call the
 * model makes, in the order it made them, before the call is dispatched. A task's run has the
 * budget of the run that started it as its parent: each of its calls must fit both, and counts
 * against both, so a child can never spend more than its parent has left.
 */
export class RunBudget {
  private readonly budgets: AgentBudgets;
  private readonly agentId: string;
  private readonly parent: RunBudget | undefined;
  private total = 0;
  private readonly perTool = new Map<string, number>();

  constructor(agentId: string, budgets: AgentBudgets, parent?: RunBudget) {
    this.agentId = agentId;
    this.budgets = budgets;
    this.parent = parent;
  }

  get calls(): number {
    return this.total;
  }

  /** Count a call; returns the refusal the model should read when it is over budget. */
  take(toolId: string): string | undefined {
    const refused = this.refusal(toolId, false);
    if (refused !== undefined) return refused;
    this.count(toolId);
    return undefined;
  }

  /** What is left here and in every run above. */
  remaining(): RemainingBudget {
    const above = this.parent?.remaining();
    const perTool: Record<string, number> = { ...above?.perTool };
    for (const [toolId, limit] of Object.entries(this.budgets.maxCallsPerTool)) {
      const left = Math.max(0, limit - (this.perTool.get(toolId) ?? 0));
      perTool[toolId] = Math.min(left, perTool[toolId] ?? left);
    }
    const own = Math.max(0, this.budgets.maxToolCalls - this.total);
    return { toolCalls: Math.min(own, above?.toolCalls ?? own), perTool };
  }

  private refusal(toolId: string, inherited: boolean): string | undefined {
    const { maxToolCalls, maxCallsPerTool } = this.budgets;
    const whose = inherited
      ? `this task's calls count against the run that started it, and its agent "${this.agentId}"`
      : `agent "${this.agentId}"`;
    if (this.total >= maxToolCalls) {
      return `Budget exhausted: ${whose} may make at most ${maxToolCalls} tool calls per run (budgets.maxToolCalls), and ${inherited ? "that run" : "this run"} has made them all. Do not call more tools: answer with what you have, and say what is left to do.`;
    }
    const limit = maxCallsPerTool[toolId];
    const used = this.perTool.get(toolId) ?? 0;
    if (limit !== undefined && used >= limit) {
      return `Budget exhausted for ${toolId}: ${whose} may call it at most ${limit} time${limit === 1 ? "" : "s"} per run (budgets.maxCallsPerTool.${toolId}). Use the results you already have or another tool.`;
    }
    return this.parent?.refusal(toolId, true);
  }

  private count(toolId: string): void {
    this.total++;
    this.perTool.set(toolId, (this.perTool.get(toolId) ?? 0) + 1);
    this.parent?.count(toolId);
  }
}
