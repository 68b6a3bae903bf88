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

describe("a task's budget under its parent's", () => {
  it("refuses a child's call once the parent has none left, and counts the child's calls in the parent", () => {
    const parent = new RunBudget("lead", { maxRounds: 5, maxToolCalls: 3, maxCallsPerTool: { grep: 2 } });
    expect(parent.take("task")).toBeUndefined();
    const child = new RunBudget("worker", { maxRounds: 5, maxToolCalls: 10, maxCallsPerTool: {} }, parent);
    expect(child.remaining()).toEqual({ toolCalls: 2, perTool: { grep: 2 } });
    expect(child.take("grep")).toBeUndefined();
    expect(child.remaining()).toEqual({ toolCalls: 1, perTool: { grep: 1 } });
    expect(child.take("read")).toBeUndefined();
    expect(child.take("read")).toMatch(
      /count against the run that started it, and its agent "lead" may make at most 3 tool calls/,
    );
    expect(child.calls).toBe(2);
    expect(parent.calls).toBe(3);
    expect(parent.take("read")).toMatch(/agent "lead" may make at most 3 tool calls per run/);
  });

  it("applies the parent's per-tool limits to the child, and the child's own first", () => {
    const parent = new RunBudget("lead", { maxRounds: 5, maxToolCalls: 50, maxCallsPerTool: { grep: 1 } });
    const child = new RunBudget(
      "worker",
      { maxRounds: 5, maxToolCalls: 50, maxCallsPerTool: { read: 0 } },
      parent,
    );
    expect(child.take("read")).toMatch(/agent "worker" may call it at most 0 times/);
    expect(child.take("grep")).toBeUndefined();
    expect(child.take("grep")).toMatch(
      /its agent "lead" may call it at most 1 time per run \(budgets\.maxCallsPerTool\.grep\)/,
    );
    expect(parent.calls).toBe(1);
  });
});
