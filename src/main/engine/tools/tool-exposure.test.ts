import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { generateText, isStepCount, jsonSchema, tool, toolSearch, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineBuiltin } from "../builtin/define-builtin.ts";
import { FsCapability } from "../capability/fs-capability.ts";
import { HiddenPathSet } from "../sandbox/hidden-path-set.ts";
import { PathScope } from "../capability/path-scope.ts";
import { bareSessionState } from "../../../../test/support/bare-session-state.ts";
import { NO_PROCESSES } from "../../../../test/support/no-process-sandbox.ts";
import { callTool, type CallContext } from "./call-tool.ts";
import type { AnyTool, ToolOrigin } from "./contract.ts";
import { TOOL_SEARCH_ID } from "./deferral.ts";
import { Scheduler } from "./scheduler.ts";
import { ToolExposure } from "./tool-exposure.ts";
import { ToolRegistry } from "./tool-registry.ts";

const BUILTIN: ToolOrigin = { layer: "builtin", kind: "builtin" };
const PLUGIN: ToolOrigin = { layer: "global", kind: "plugin", name: "extras" };

function make(
  id: string,
  description: string,
  defer: boolean,
  execute: (args: { city: string }) => Promise<unknown> = async () => ({ ok: id }),
): AnyTool {
  return {
    ...defineBuiltin({
      id,
      description,
      schema: z.strictObject({ city: z.string().describe("City name") }),
      requires: {},
      readOnly: true,
      kind: "other",
      execute,
    }),
    defer,
  };
}

const weatherCalls: string[] = [];
const weather = make(
  "get_weather",
  "Weather forecast for a city: temperature and rain.",
  true,
  async (args) => {
    const { city } = args as { city: string };
    weatherCalls.push(city);
    return { city, forecast: "rain tomorrow" };
  },
);

function testRegistry(): ToolRegistry {
  const r = new ToolRegistry();
  r.register(make("read", "Read a file.", false), BUILTIN);
  r.register(make(TOOL_SEARCH_ID, "Find deferred tools.", false), BUILTIN);
  r.register(make("echo", "Echo text back.", false), PLUGIN);
  r.register(weather, PLUGIN);
  r.register(make("stock_quote", "Latest stock price for a ticker symbol.", true), PLUGIN);
  return r;
}

describe("ToolExposure", () => {
  it("shows the non-deferred tools in full and names the deferred ones", () => {
    const exposure = new ToolExposure(testRegistry(), { contextTokens: 1_000_000 });
    expect(exposure.initialToolIds()).toEqual(["echo", "read", TOOL_SEARCH_ID]);
    expect(exposure.deferredIds()).toEqual(["get_weather", "stock_quote"]);
    expect(exposure.deferredNotice()).toMatch(/tool_search.*: get_weather, stock_quote\.$/);
    expect(exposure.isDeferred("get_weather")).toBe(true);
  });

  it("loads a discovered tool from then on, and ignores ids that are not deferred", () => {
    const exposure = new ToolExposure(testRegistry(), { contextTokens: 1_000_000 });
    expect(exposure.discover(["get_weather", "read", "nope", "get_weather"])).toEqual(["get_weather"]);
    expect(exposure.visibleIds()).toEqual(["echo", "get_weather", "read", TOOL_SEARCH_ID]);
    expect(exposure.deferredIds()).toEqual(["stock_quote"]);
    expect(exposure.discoveredIds()).toEqual(["get_weather"]);
    expect(exposure.initialToolIds()).not.toContain("get_weather");
  });

  it("hides tool_search while nothing is deferred", () => {
    const r = new ToolRegistry();
    r.register(make("read", "Read a file.", false), BUILTIN);
    r.register(make(TOOL_SEARCH_ID, "Find deferred tools.", false), BUILTIN);
    const exposure = new ToolExposure(r);
    expect(exposure.initialToolIds()).toEqual(["read"]);
    expect(exposure.deferredNotice()).toBeUndefined();
  });

  it("searches only deferred tools the agent may see", () => {
    const exposure = new ToolExposure(testRegistry(), { visible: (id) => id !== "stock_quote" });
    expect(exposure.search("stock price")).toEqual([]);
    expect(exposure.search("echo")).toEqual([]);
    expect(exposure.search("weather").map((h) => h.id)).toEqual(["get_weather"]);
    expect(exposure.deferredIds()).toEqual(["get_weather"]);
  });

  it("finds an MCP server's deferred tools by the server's name", () => {
    const r = testRegistry();
    const acme: ToolOrigin = { layer: "global", kind: "mcp", name: "acmecorp" };
    for (const n of [1, 2, 3]) r.register(make(`tool_${n}`, `Step ${n} of the pipeline.`, true), acme);
    const exposure = new ToolExposure(r, { contextTokens: 1_000_000 });
    expect(exposure.search("acmecorp").map((h) => h.id)).toEqual(["tool_1", "tool_2", "tool_3"]);
  });

  it("follows the registry: a tool registered later is deferred by the budget", () => {
    const r = testRegistry();
    const exposure = new ToolExposure(r, { contextTokens: 2000 });
    expect(exposure.deferredIds()).toEqual(["get_weather", "stock_quote"]);
    r.register(make("big_plugin", "x".repeat(4000), false), PLUGIN);
    expect(exposure.deferredIds()).toEqual(["big_plugin", "get_weather", "stock_quote"]);
    expect(exposure.search("big_plugin").map((h) => h.id)).toEqual(["big_plugin"]);
    exposure.configure({ contextTokens: 1_000_000 });
    expect(exposure.deferredIds()).toEqual(["get_weather", "stock_quote"]);
  });
});

describe("the AI SDK's toolSearch with Lathe's search (the seam for the agent loop)", () => {
  let dir: string;
  let ctx: CallContext;
  let registry: ToolRegistry;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "lathe-exposure-"));
    registry = testRegistry();
    weatherCalls.length = 0;
    const vars = { workspace: [dir], "ad-hoc": [], "user-data": [], session: [] };
    ctx = {
      registry,
      session: bareSessionState("s-exposure", path.join(dir, "session"), registry),
      scheduler: new Scheduler(),
      root: dir,
      // These tools start no process: a sandbox that refuses proves none tries.
      sandbox: NO_PROCESSES,
      capabilityFor: () =>
        new FsCapability({
          root: dir,
          read: PathScope.compile([], vars),
          write: PathScope.compile([], vars),
          hidden: HiddenPathSet.none(),
        }),
    };
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** What the agent loop builds each turn: every tool, deferred ones marked, calls through Lathe's pipeline. */
  function sdkTools(exposure: ToolExposure): ToolSet {
    const tools: ToolSet = {};
    for (const id of [...exposure.visibleIds(), ...exposure.deferredIds()]) {
      if (id === TOOL_SEARCH_ID) continue;
      const entry = registry.get(id)!;
      tools[id] = tool({
        description: entry.tool.description,
        inputSchema: jsonSchema<Record<string, unknown>>(entry.tool.parameters),
        deferLoading: exposure.isDeferred(id),
        execute: async (args, { abortSignal }) =>
          (await callTool(ctx, { toolId: id, args, ...(abortSignal ? { signal: abortSignal } : {}) }))
            .envelope,
      });
    }
    tools[TOOL_SEARCH_ID] = toolSearch({ search: exposure.sdkSearch(5) });
    return tools;
  }

  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const callStep = (id: string, toolName: string, input: unknown) => ({
    content: [{ type: "tool-call" as const, toolCallId: id, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  });
  const textStep = (text: string) => ({
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: undefined },
    usage,
    warnings: [],
  });
  const toolNames = (call: { tools?: ReadonlyArray<{ name: string }> }) =>
    (call.tools ?? []).map((t) => t.name).sort();

  it("step 1 searches, step 2 calls the discovered tool through Lathe's pipeline, and it stays loaded next turn", async () => {
    const exposure = new ToolExposure(registry, { contextTokens: 1_000_000 });
    const model = new MockLanguageModelV4({
      doGenerate: [
        callStep("c1", TOOL_SEARCH_ID, { query: "weather forecast" }),
        callStep("c2", "get_weather", { city: "Paris" }),
        textStep("Rain tomorrow in Paris."),
      ],
    });
    const result = await generateText({
      model,
      tools: sdkTools(exposure),
      system: exposure.deferredNotice(),
      stopWhen: isStepCount(5),
      prompt: "Will it rain in Paris tomorrow?",
    });

    expect(toolNames(model.doGenerateCalls[0]!)).toEqual(["echo", "read", TOOL_SEARCH_ID]);
    expect(toolNames(model.doGenerateCalls[1]!)).toEqual(["echo", "get_weather", "read", TOOL_SEARCH_ID]);
    const schema = model.doGenerateCalls[1]!.tools!.find((t) => t.name === "get_weather");
    expect(schema).toMatchObject({ inputSchema: { properties: { city: { type: "string" } } } });
    expect(result.steps[0]!.toolResults[0]!.output).toEqual({
      tools: [{ name: "get_weather", description: weather.description }],
    });
    expect(result.steps[1]!.toolResults[0]!.output).toMatchObject({
      type: "output",
      data: { city: "Paris", forecast: "rain tomorrow" },
    });
    expect(weatherCalls).toEqual(["Paris"]);
    expect(result.text).toBe("Rain tomorrow in Paris.");
    expect(exposure.discoveredIds()).toEqual(["get_weather"]);

    // The SDK forgets discoveries after a generation; the exposure does not.
    const nextTurn = new MockLanguageModelV4({ doGenerate: [textStep("ok")] });
    await generateText({ model: nextTurn, tools: sdkTools(exposure), prompt: "And in Rome?" });
    expect(toolNames(nextTurn.doGenerateCalls[0]!)).toContain("get_weather");
    expect(toolNames(nextTurn.doGenerateCalls[0]!)).not.toContain("stock_quote");
  });

  it("a deferred tool the model calls before searching is not offered to the provider", async () => {
    const exposure = new ToolExposure(registry, { contextTokens: 1_000_000 });
    const model = new MockLanguageModelV4({
      doGenerate: [callStep("c1", "stock_quote", { city: "ACME" }), textStep("done")],
    });
    const result = await generateText({
      model,
      tools: sdkTools(exposure),
      stopWhen: isStepCount(3),
      prompt: "ACME?",
    });
    expect(toolNames(model.doGenerateCalls[0]!)).not.toContain("stock_quote");
    // The SDK reports the call as an error to the model instead of running it.
    const content = result.steps[0]!.content.map((c) => c.type);
    expect(content).toContain("tool-error");
  });
});
