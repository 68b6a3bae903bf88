import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import type { LanguageModel } from "ai";
import { z } from "zod";
import type { AgentManifest } from "../src/main/engine/agent/agent-manifest.ts";
import type { AgentRunResult } from "../src/main/engine/agent/agent-run.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import { defineBuiltin } from "../src/main/engine/builtin/define-builtin.ts";
import type { AnyTool } from "../src/main/engine/tools/contract.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { scriptedModel } from "./support/scripted-model.ts";

// Deferred tools as a model meets them in a run: what it is shown, what it is told, what it can call.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const calls: string[] = [];

function plugin(id: string, description: string, defer: boolean): AnyTool {
  return {
    ...defineBuiltin({
      id,
      description,
      schema: z.strictObject({ text: z.string().describe("The text.") }),
      requires: {},
      readOnly: true,
      kind: "other",
      execute: async ({ text }) => {
        calls.push(`${id}:${text}`);
        return { id, text };
      },
    }),
    defer,
  };
}

async function harness(agent: Partial<AgentManifest>, tools: AnyTool[]): Promise<AgentHarness> {
  const h = await openAgentHarness({ agent, tools });
  cleanups.push(() => h.cleanup());
  return h;
}

const toolNames = (call: LanguageModelV4CallOptions): string[] =>
  (call.tools ?? []).map((t) => t.name).sort();
const systemOf = (call: LanguageModelV4CallOptions): string =>
  call.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");

describe("an agent that may not use tool_search", () => {
  it.each([
    { case: "its allow list leaves tool_search out", tools: { allow: ["read", "shout"], deny: [] } },
    { case: "it denies tool_search", tools: { allow: ["*"], deny: ["tool_search"] } },
  ])("is shown a tool marked defer in full, and can call it: $case", async ({ tools }) => {
    calls.length = 0;
    const h = await harness({ tools }, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const model = scriptedModel([
      (call) => {
        seen.push(call);
        return { toolCalls: [{ name: "shout", input: { text: "hi" } }] };
      },
      (call) => {
        seen.push(call);
        return { text: "done" };
      },
    ]);
    const { result, events } = await h.run("shout hi", model);
    expect(result.status).toBe("completed");
    // Without tool_search a deferred tool could never be loaded: it is shown from the start…
    expect(toolNames(seen[0]!)).toContain("shout");
    expect(toolNames(seen[0]!)).not.toContain("tool_search");
    // …and the model is not told to use a tool it does not have.
    expect(systemOf(seen[0]!)).not.toContain("tool_search");
    expect(eventsOf(events, "tool-result").map((e) => e.envelope.type)).toEqual(["output"]);
    expect(calls).toEqual(["shout:hi"]);
  });

  it("control: an agent with tool_search starts with the deferred tool's name only", async () => {
    const h = await harness({}, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const model = scriptedModel([
      (call) => {
        seen.push(call);
        return { text: "done" };
      },
    ]);
    await h.run("hello", model);
    expect(toolNames(seen[0]!)).not.toContain("shout");
    expect(toolNames(seen[0]!)).toContain("tool_search");
    expect(systemOf(seen[0]!)).toMatch(/Deferred tools .*: shout\./);
  });
});

describe("the budget follows the model of each run", () => {
  it("a run on a model of unknown context after one on a large model defers by the assumed 32k again", async () => {
    // About 10,000 tokens: inside 10% of a million, far past 10% of 32k.
    const big = plugin("big_report", `Build a report. ${"Detail of the report. ".repeat(1_900)}`, false);
    const h = await harness({}, [big]);
    const seen: LanguageModelV4CallOptions[] = [];
    const answer = () =>
      scriptedModel([
        (call) => {
          seen.push(call);
          return { text: "ok" };
        },
      ]);
    const first = await h.run("hello", answer(), { contextTokens: 1_000_000 });
    expect(toolNames(seen[0]!)).toContain("big_report");
    // The same conversation goes on with a model whose context Lathe does not know.
    const sessionId = first.result.sessionId;
    await h.run("again", answer(), { sessionId, contextTokens: undefined });
    expect(toolNames(seen[1]!)).not.toContain("big_report");
    expect(systemOf(seen[1]!)).toMatch(/Deferred tools .*: big_report, /);
  });
});

describe("a deferred tool called in the step that searches for it", () => {
  /** What the model is told, in the next step, for each call of its first step (by tool name). */
  const toldInStep2 = (seen: LanguageModelV4CallOptions[]): Record<string, string> =>
    Object.fromEntries(
      seen[1]!.prompt.flatMap((m) =>
        m.role === "tool"
          ? m.content.flatMap((p) =>
              p.type === "tool-result" ? [[p.toolName, JSON.stringify(p.output)]] : [],
            )
          : [],
      ),
    );

  // The SDK refuses the call as it parses it, before tool_search runs; by the step's end the
  // tool is loaded. Told to search again, a model repeats the pair and is refused again.
  it.each([
    ["after tool_search", ["tool_search", "shout"]],
    ["before tool_search", ["shout", "tool_search"]],
  ])("%s: is told the tool is loaded now and to call it again, not to search", async (_when, order) => {
    calls.length = 0;
    const h = await harness({}, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const input = { tool_search: { query: "shout" }, shout: { text: "hi" } } as Record<string, unknown>;
    const model = scriptedModel([
      (call) => {
        seen.push(call);
        return { toolCalls: order.map((name) => ({ name, input: input[name] })) };
      },
      (call) => {
        seen.push(call);
        return { toolCalls: [{ name: "shout", input: { text: "hi" } }] };
      },
      { text: "done" },
    ]);
    const { result, events } = await h.run("shout hi", model);
    expect(result.status).toBe("completed");
    const told = toldInStep2(seen).shout ?? "";
    expect(told).toMatch(/loaded now/);
    expect(told).not.toMatch(/Call tool_search/);
    // The run's events (what the store keeps and a resume sends) say the same.
    const shoutResults = eventsOf(events, "tool-result").filter((e) => e.toolName === "shout");
    expect(shoutResults[0]?.envelope).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(/loaded now/),
    });
    expect(calls).toEqual(["shout:hi"]);
  });

  it("control: without a search in its step it is told to load it with tool_search", async () => {
    const h = await harness({}, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const model = scriptedModel([
      (call) => {
        seen.push(call);
        return { toolCalls: [{ name: "shout", input: { text: "hi" } }] };
      },
      (call) => {
        seen.push(call);
        return { text: "done" };
      },
    ]);
    await h.run("shout hi", model);
    expect(toldInStep2(seen).shout).toMatch(/Call tool_search with the query \\"shout\\" to load it/);
  });
});

/** Resume the session in a second engine on the same home and folder, as `lathe run --resume` in another process does. */
async function resumeElsewhere(
  h: AgentHarness,
  sessionId: string,
  model: LanguageModel,
  contextTokens: number,
): Promise<AgentRunResult> {
  return runAgent({
    engine: await h.reopen(),
    agent: h.agent,
    model: { spec: { provider: "scripted", model: "scripted-model" }, model },
    prompt: "again",
    sessionId,
    contextTokens,
    flushIntervalMs: 5,
  });
}

/** A model that loads "shout" with tool_search, then answers; every request it is sent kept in `seen`. */
const loadThenAnswer = (seen: LanguageModelV4CallOptions[]) =>
  scriptedModel([
    (call) => {
      seen.push(call);
      return { toolCalls: [{ name: "tool_search", input: { query: "shout" } }] };
    },
    (call) => {
      seen.push(call);
      return { text: "loaded" };
    },
  ]);
/** A model that answers at once; the request it is sent kept in `seen`. */
const answer = (seen: LanguageModelV4CallOptions[]) =>
  scriptedModel([
    (call) => {
      seen.push(call);
      return { text: "ok" };
    },
  ]);

describe("a tool loaded with tool_search stays loaded for the rest of the session", () => {
  it("in the next run of the same engine (control)", async () => {
    const h = await harness({}, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const first = await h.run("load shout", loadThenAnswer(seen));
    expect(toolNames(seen[1]!)).toContain("shout");
    await h.run("again", answer(seen), { sessionId: first.result.sessionId });
    expect(toolNames(seen[2]!)).toContain("shout");
    expect(systemOf(seen[2]!)).not.toMatch(/Deferred tools .*shout/);
  });

  it("when the session is resumed by another process (lathe run --resume)", async () => {
    const h = await harness({}, [plugin("shout", "Shout a text back in capitals.", true)]);
    const seen: LanguageModelV4CallOptions[] = [];
    const first = await h.run("load shout", loadThenAnswer(seen));
    expect(toolNames(seen[1]!)).toContain("shout");
    const result = await resumeElsewhere(h, first.result.sessionId, answer(seen), 1_000_000);
    expect(result.status).toBe("completed");
    // Its conversation holds tool_search's answer with the definition: the model was told it is loaded.
    expect(toolNames(seen[2]!)).toContain("shout");
    expect(systemOf(seen[2]!)).not.toMatch(/Deferred tools .*shout/);
  });
});

describe("a tool loaded under a larger context, in a run whose model has a smaller one", () => {
  // About 5,000 tokens: loaded in a 1M context, more than a quarter of a 16k one.
  const big = () =>
    plugin("shout", `Shout a text back in capitals. ${"More about shouting. ".repeat(1000)}`, true);

  it("is unloaded in the next run of the same engine, and the model is told", async () => {
    const h = await harness({}, [big()]);
    const seen: LanguageModelV4CallOptions[] = [];
    const first = await h.run("load shout", loadThenAnswer(seen), { contextTokens: 1_000_000 });
    expect(toolNames(seen[1]!)).toContain("shout");
    await h.run("again", answer(seen), { sessionId: first.result.sessionId, contextTokens: 16_384 });
    expect(toolNames(seen[2]!)).not.toContain("shout");
    expect(systemOf(seen[2]!)).toMatch(
      /Unloaded, since this model's context \(16,384 tokens\) cannot hold them with every request: shout\./,
    );
  });

  it("is not loaded again, and the model is told, when another process resumes the session", async () => {
    const h = await harness({}, [big()]);
    const seen: LanguageModelV4CallOptions[] = [];
    const first = await h.run("load shout", loadThenAnswer(seen), { contextTokens: 1_000_000 });
    const result = await resumeElsewhere(h, first.result.sessionId, answer(seen), 16_384);
    expect(result.status).toBe("completed");
    expect(toolNames(seen[2]!)).not.toContain("shout");
    expect(systemOf(seen[2]!)).toMatch(/Unloaded, since this model's context \(16,384 tokens\) .*: shout\./);
  });
});
