import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import type { AnyTool, ToolOrigin } from "./contract.ts";
import {
  DEFAULT_CONTEXT_TOKENS,
  LOCKED_TOOL_IDS,
  planDeferral,
  toolTokens,
  TOOL_SEARCH_ID,
} from "./deferral.ts";
import { deferredToolsNotice, noticeLimitChars } from "./deferred-notice.ts";
import { modelSchema } from "./model-schema.ts";
import { ToolExposure } from "./tool-exposure.ts";
import { estimateTextTokens, estimateToolTokens } from "./token-estimate.ts";
import { ToolRegistry } from "./tool-registry.ts";

const BUILTIN: ToolOrigin = { layer: "builtin", kind: "builtin" };
const PLUGIN: ToolOrigin = { layer: "global", kind: "plugin", name: "p" };
const MCP: ToolOrigin = { layer: "project", kind: "mcp", name: "srv" };

/** A tool whose definition costs about `chars / 4` tokens. */
function tool(id: string, chars = 400, extra: Partial<AnyTool> = {}): AnyTool {
  return {
    ...defineBuiltin({
      id,
      description: `${id}: ${"x".repeat(Math.max(0, chars - id.length - 2))}`,
      schema: z.strictObject({ value: z.string().describe("The value.") }),
      requires: {},
      readOnly: true,
      kind: "other",
      execute: async () => ({}),
    }),
    ...extra,
  };
}

function registry(...tools: Array<[AnyTool, ToolOrigin]>): ToolRegistry {
  const r = new ToolRegistry();
  for (const [t, origin] of tools) r.register(t, origin);
  return r;
}

describe("token estimate", () => {
  it("counts about one token per four characters of the definition as sent", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcd")).toBe(1);
    expect(estimateTextTokens("abcde")).toBe(2);
    const t = tool("weather", 800);
    // As sent: the parameters as the model is shown them, without additionalProperties: false.
    const parameters = modelSchema(t.parameters);
    expect(parameters).not.toHaveProperty("additionalProperties");
    const sent = JSON.stringify({ name: t.id, description: t.description, parameters });
    expect(estimateToolTokens(t)).toBe(Math.ceil(sent.length / 4));
    expect(toolTokens(t)).toBe(estimateToolTokens(t));
  });

  it("grows with the description and the schema", () => {
    expect(estimateToolTokens(tool("a", 4000))).toBeGreaterThan(estimateToolTokens(tool("a", 400)) + 800);
  });
});

describe("planDeferral", () => {
  it("defers a tool that asks for it (defer: true), whatever the budget", () => {
    const r = registry(
      [tool("read"), BUILTIN],
      [tool(TOOL_SEARCH_ID), BUILTIN],
      [tool("weather", 400, { defer: true }), PLUGIN],
      [tool("stocks"), MCP],
    );
    const plan = planDeferral(r.all(), { contextTokens: 1_000_000 });
    expect([...plan.deferred]).toEqual(["weather"]);
    expect(plan.byConfig).toEqual(["weather"]);
    expect(plan.byBudget).toEqual([]);
  });

  it("defers nothing while every definition fits in 10% of the context", () => {
    const r = registry([tool("read"), BUILTIN], [tool("weather"), PLUGIN], [tool("stocks"), MCP]);
    const plan = planDeferral(r.all(), { contextTokens: 10_000 });
    expect(plan.budgetTokens).toBe(1000);
    expect(plan.deferred.size).toBe(0);
    expect(plan.initialTokens).toBe(plan.fullTokens);
    expect(plan.initialTokens).toBeLessThanOrEqual(1000);
  });

  it("past the budget defers the largest non-locked tools until what the model sees first fits", () => {
    const r = registry(
      [tool("read", 2000), BUILTIN],
      [tool(TOOL_SEARCH_ID, 800), BUILTIN],
      [tool("small", 200), PLUGIN],
      [tool("medium", 1200), PLUGIN],
      [tool("huge", 8000), MCP],
      [tool("large", 4000), PLUGIN],
    );
    const plan = planDeferral(r.all(), { contextTokens: 20_000 });
    expect(plan.budgetTokens).toBe(2000);
    expect(plan.byBudget).toEqual(["huge", "large"]);
    expect(plan.initialTokens).toBeLessThanOrEqual(plan.budgetTokens);
    expect(plan.initialTokens).toBeLessThan(plan.fullTokens);
    expect(plan.deferred.has("read")).toBe(false);
  });

  it("never defers a locked built-in for the budget, even when the budget cannot be met", () => {
    const locked = [...LOCKED_TOOL_IDS].map((id): [AnyTool, ToolOrigin] => [tool(id, 4000), BUILTIN]);
    const r = registry(...locked, [tool("helper", 400), BUILTIN], [tool("plugin_tool", 400), PLUGIN]);
    const plan = planDeferral(r.all(), { contextTokens: 1000 });
    for (const id of LOCKED_TOOL_IDS) expect(plan.deferred.has(id)).toBe(false);
    expect(plan.byBudget).toEqual(["plugin_tool", "helper"]);
    expect(plan.initialTokens).toBeGreaterThan(plan.budgetTokens);
  });

  it("defers other tools before built-ins that are not locked, then by size", () => {
    const r = registry(
      [tool(TOOL_SEARCH_ID, 40), BUILTIN],
      [tool("builtin_extra", 6000), BUILTIN],
      [tool("plugin_small", 300), PLUGIN],
      [tool("mcp_big", 3000), MCP],
    );
    const plan = planDeferral(r.all(), { contextTokens: 1000 });
    expect(plan.byBudget).toEqual(["mcp_big", "plugin_small", "builtin_extra"]);
  });

  it("counts the line naming the deferred tools and tool_search itself against the budget", () => {
    const r = registry([tool(TOOL_SEARCH_ID, 400), BUILTIN], [tool("a", 400, { defer: true }), PLUGIN]);
    const plan = planDeferral(r.all(), { contextTokens: 1_000_000 });
    const notice = deferredToolsNotice([{ id: "a", origin: PLUGIN }]) as string;
    expect(notice).toContain("tool_search");
    expect(notice.endsWith("a.")).toBe(true);
    expect(plan.initialTokens).toBe(toolTokens(r.get(TOOL_SEARCH_ID)!.tool) + estimateTextTokens(notice));
  });

  it("ignores disabled tools and never defers tool_search, even by config", () => {
    const r = registry(
      [tool(TOOL_SEARCH_ID, 400, { defer: true }), BUILTIN],
      [tool("off", 40_000, { enabled: false }), PLUGIN],
    );
    const plan = planDeferral(r.all(), { contextTokens: 1000 });
    expect(plan.deferred.size).toBe(0);
    expect(plan.fullTokens).toBe(toolTokens(r.get(TOOL_SEARCH_ID)!.tool));
  });

  it("defers nothing when tool_search is not among the tools (an agent that may not use it)", () => {
    const r = registry(
      [tool("read", 400), BUILTIN],
      [tool("asks", 400, { defer: true }), PLUGIN],
      [tool("huge", 40_000), MCP],
    );
    const plan = planDeferral(r.all(), { contextTokens: 1000 });
    expect([...plan.deferred]).toEqual([]);
    expect(plan.byConfig).toEqual([]);
    expect(plan.byBudget).toEqual([]);
    expect(plan.initialTokens).toBe(plan.fullTokens);
    // The same tools with tool_search: both are deferred.
    r.register(tool(TOOL_SEARCH_ID, 400), BUILTIN);
    expect([...planDeferral(r.all(), { contextTokens: 1000 }).deferred].sort()).toEqual(["asks", "huge"]);
  });

  it("assumes a 32k context when none is given", () => {
    expect(planDeferral([]).budgetTokens).toBe(Math.floor(DEFAULT_CONTEXT_TOKENS * 0.1));
    expect(planDeferral([], { contextTokens: 128_000, budgetFraction: 0.25 }).budgetTokens).toBe(32_000);
  });

  it.each([
    [{ contextTokens: 0 }, /contextTokens must be a positive/],
    [{ contextTokens: Number.NaN }, /contextTokens must be a positive/],
    [{ budgetFraction: 0 }, /budgetFraction must be in \(0, 1\]/],
    [{ budgetFraction: 1.5 }, /budgetFraction must be in \(0, 1\]/],
  ])("refuses the option %o", (options, message) => {
    expect(() => planDeferral([], options)).toThrow(message);
  });
});

describe("the deferred-tools notice", () => {
  const mcp = (name: string): ToolOrigin => ({ layer: "global", kind: "mcp", name });
  /** A long id (55 characters for an 8-letter server). */
  const longId = (server: string, i: number): string =>
    `${server}_synchronize_customer_relationship_records_${String(i).padStart(4, "0")}`;

  it("names every deferred tool while they fit", () => {
    const notice = deferredToolsNotice([
      { id: "b_tool", origin: mcp("s") },
      { id: "a_tool", origin: PLUGIN },
    ]);
    expect(notice).toMatch(/call tool_search .*: a_tool, b_tool\.$/);
  });

  it("stays within its share of the budget with 500 long-named deferred tools, and tool_search still finds each", () => {
    const entries: Array<[AnyTool, ToolOrigin]> = [[tool(TOOL_SEARCH_ID, 400), BUILTIN]];
    for (let i = 0; i < 400; i++)
      entries.push([tool(longId("acmecorp", i), 200, { defer: true }), mcp("acmecorp")]);
    for (let i = 0; i < 100; i++)
      entries.push([tool(longId("betacorp", i), 200, { defer: true }), mcp("betacorp")]);
    const r = registry(...entries);
    const exposure = new ToolExposure(r);
    const plan = exposure.plan();
    const notice = exposure.deferredNotice() as string;
    // Every name would take ~28,500 characters (~7,000 tokens): past the whole 3,276-token budget.
    expect(entries.slice(1).reduce((n, [t]) => n + t.id.length + 2, 0)).toBeGreaterThan(28_000);
    expect(notice.length).toBeLessThanOrEqual(noticeLimitChars(plan.budgetTokens));
    expect(estimateTextTokens(notice)).toBeLessThanOrEqual(plan.budgetTokens / 4);
    expect(plan.initialTokens).toBeLessThanOrEqual(plan.budgetTokens);
    // Names from both servers, in turn, then the rest counted by server.
    expect(notice).toContain(longId("acmecorp", 0));
    expect(notice).toContain(longId("betacorp", 0));
    expect(notice).toMatch(
      /; and \d+ more from MCP server "acmecorp", \d+ more from MCP server "betacorp" \(tool_search finds them by what they do or by their server's name\)\.$/,
    );
    const named = entries.filter(([t]) => notice.includes(t.id)).length;
    const counts = [...notice.matchAll(/(\d+) more from/g)].map((m) => Number(m[1]));
    expect(named - 1 + counts.reduce((a, b) => a + b, 0)).toBe(500);
    // A tool the notice leaves out is found by its exact name, and by its server's name.
    const unnamed = longId("acmecorp", 399);
    expect(notice).not.toContain(unnamed);
    expect(exposure.search(unnamed, { limit: 1 })).toEqual([
      expect.objectContaining({ id: unnamed, match: "name" }),
    ]);
    expect(exposure.search("betacorp", { limit: 500 })).toHaveLength(100);
  });

  it("counts the servers past the eighth together, and names none when even one name does not fit", () => {
    const tools = Array.from({ length: 20 }, (_, s) =>
      Array.from({ length: 30 }, (_, i) => ({ id: longId(`server${s}`, i), origin: mcp(`server${s}`) })),
    ).flat();
    const limit = noticeLimitChars(0);
    const notice = deferredToolsNotice(tools, limit) as string;
    expect(notice.length).toBeLessThanOrEqual(limit);
    expect(notice).toMatch(/ more from 12 other sources \(tool_search/);
    expect(notice).toContain(longId("server0", 0));
    const tight = deferredToolsNotice(tools, 600) as string;
    expect(tight).toMatch(
      /before calling it\): 30 from MCP server "server0", .* 360 from 12 other sources \(/,
    );
  });
});
