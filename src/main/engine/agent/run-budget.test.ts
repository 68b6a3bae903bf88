import { describe, expect, it } from "vitest";
import { RunBudget } from "./run-budget.ts";

describe("run budgets", () => {
  it("counts every call against maxToolCalls and refuses the ones beyond it", () => {
    const budget = new RunBudget("a", { maxRounds: 5, maxToolCalls: 2, maxCallsPerTool: {} });
    expect(budget.take("read")).toBeUndefined();
    expect(budget.take("glob")).toBeUndefined();
    expect(budget.take("read")).toMatch(/at most 2 tool calls per run \(budgets\.maxToolCalls\)/);
    expect(budget.calls).toBe(2);
  });

  it("limits one tool without touching the others, and a refused call costs nothing", () => {
    const budget = new RunBudget("a", {
      maxRounds: 5,
      maxToolCalls: 10,
      maxCallsPerTool: { grep: 1, bash: 0 },
    });
    expect(budget.take("grep")).toBeUndefined();
    expect(budget.take("grep")).toMatch(/at most 1 time per run \(budgets\.maxCallsPerTool\.grep\)/);
    expect(budget.take("bash")).toMatch(/at most 0 times/);
    expect(budget.take("read")).toBeUndefined();
    expect(budget.calls).toBe(2);
  });
});
