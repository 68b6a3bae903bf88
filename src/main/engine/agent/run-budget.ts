import type { AgentBudgets } from "./agent-manifest.ts";

/**
 * Counts one run's tool calls against the agent's budgets. `take` is called once per call the
 * model makes, in the order it made them, before the call is dispatched.
 */
export class RunBudget {
  private readonly budgets: AgentBudgets;
  private readonly agentId: string;
  private total = 0;
  private readonly perTool = new Map<string, number>();

  constructor(agentId: string, budgets: AgentBudgets) {
    this.agentId = agentId;
    this.budgets = budgets;
  }

  get calls(): number {
    return this.total;
  }

  /** Count a call; returns the refusal the model should read when it is over budget. */
  take(toolId: string): string | undefined {
    const { maxToolCalls, maxCallsPerTool } = this.budgets;
    if (this.total >= maxToolCalls) {
      return `Budget exhausted: agent "${this.agentId}" may make at most ${maxToolCalls} tool calls per run (budgets.maxToolCalls), and this run has made them all. Do not call more tools: answer with what you have, and say what is left to do.`;
    }
    const limit = maxCallsPerTool[toolId];
    const used = this.perTool.get(toolId) ?? 0;
    if (limit !== undefined && used >= limit) {
      return `Budget exhausted for ${toolId}: agent "${this.agentId}" may call it at most ${limit} time${limit === 1 ? "" : "s"} per run (budgets.maxCallsPerTool.${toolId}). Use the results you already have or another tool.`;
    }
    this.total++;
    this.perTool.set(toolId, used + 1);
    return undefined;
  }
}
