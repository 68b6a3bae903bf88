import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { APICallError, type LanguageModel } from "ai";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { replaySession } from "../src/main/engine/agent/replay-session.ts";
import { CUT_OFF_NOTE } from "../src/main/engine/agent/model-messages.ts";
import { GGUF_STRING_CAP } from "../src/main/engine/agent/providers/gguf/tool-call-grammar.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import { RunStopped } from "../src/main/engine/agent/run-stopped.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import { defineBuiltin } from "../src/main/engine/builtin/define-builtin.ts";
import { HEADLESS_QUESTION_ERROR } from "../src/main/engine/builtin/question.ts";
import { readTool } from "../src/main/engine/builtin/read.ts";
import { writeTool } from "../src/main/engine/builtin/write.ts";
import { Engine } from "../src/main/engine/engine.ts";
import { ToolCallError } from "../src/main/engine/errors/tool-call-error.ts";
import type { AnyTool } from "../src/main/engine/tools/contract.ts";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { startOpenAICompatibleServer } from "./fixtures/openai-compatible-server.ts";
import { scriptedModel, toolNamesOffered, toolResultsIn } from "./support/scripted-model.ts";

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function open(options: Parameters<typeof openAgentHarness>[0] = {}): Promise<AgentHarness> {
  harness = await openAgentHarness(options);
  return harness;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `read` and `write` that log when they run, shadowing the built-ins (same schema, plan and policy). */
function loggedFileTools(log: string[]): AnyTool[] {
  return [
    {
      ...readTool,
      execute: async (args: { path: string }, runtime) => {
        log.push(`start read ${args.path}`);
        await sleep(60);
        const data = await readTool.execute(args as never, runtime);
        log.push(`end read ${args.path}`);
        return data;
      },
    },
    {
      ...writeTool,
      execute: async (args: { path: string; content: string }, runtime) => {
        log.push(`start write ${args.path}`);
        const data = await writeTool.execute(args as never, runtime);
        log.push(`end write ${args.path}`);
        return data;
      },
    },
  ];
}

/** Tool results in the order the model made the calls (results arrive as calls finish). */
function resultsInCallOrder(events: readonly RunEvent[]) {
  return eventsOf(events, "tool-result").sort((a, b) => (a.toolCallId < b.toolCallId ? -1 : 1));
}

/** Consecutive text (or reasoning) deltas of a step joined into one. */
function mergeDeltas(events: readonly RunEvent[]): RunEvent[] {
  const out: RunEvent[] = [];
  for (const e of events) {
    const last = out.at(-1);
    if ((e.type === "text" || e.type === "reasoning") && last?.type === e.type && last.step === e.step) {
      out[out.length - 1] = { ...last, text: last.text + e.text, ...(e.cutOff ? { cutOff: true } : {}) };
    } else out.push(e);
  }
  return out;
}

describe("a scripted conversation drives the tools through the engine", () => {
  it("runs the reads of one step in parallel and a write issued after them only once both finished", async () => {
    const log: string[] = [];
    const h = await open({ tools: loggedFileTools(log) });
    await h.put("a.txt", "alpha\n");
    await h.put("b.txt", "beta\n");
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "read", input: { path: "a.txt" } },
          { name: "read", input: { path: "b.txt" } },
          { name: "write", input: { path: "c.txt", content: "alpha beta\n" } },
        ],
      },
      { text: "Wrote c.txt." },
    ]);
    const { result, events } = await h.run("combine", model, { mode: "yolo" });

    expect(result.status).toBe("completed");
    expect(log.slice(0, 2).sort()).toEqual(["start read a.txt", "start read b.txt"]);
    expect(log.slice(2, 4).sort()).toEqual(["end read a.txt", "end read b.txt"]);
    expect(log.slice(4)).toEqual(["start write c.txt", "end write c.txt"]);
    expect(await h.text("c.txt")).toBe("alpha beta\n");
    expect(resultsInCallOrder(events).map((e) => [e.toolName, e.envelope.type])).toEqual([
      ["read", "output"],
      ["read", "output"],
      ["write", "output"],
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "completed", steps: 2 });
  });

  it("lets the model write what it read: the envelopes are what it sees", async () => {
    const h = await open();
    await h.put("a.txt", "alpha\n");
    await h.put("b.txt", "beta\n");
    const seen: unknown[] = [];
    const model = scriptedModel([
      {
        text: "Reading.",
        toolCalls: [
          { name: "read", input: { path: "a.txt" } },
          { name: "read", input: { path: "b.txt" } },
        ],
      },
      (call) => {
        const results = toolResultsIn(call);
        seen.push(...results.map((r) => r.output));
        const content = results
          .map((r) => (r.output as { value: { data: { content: string } } }).value.data.content)
          .join("");
        return { toolCalls: [{ name: "write", input: { path: "c.txt", content } }] };
      },
      { text: "Done: c.txt holds both files." },
    ]);
    const { result } = await h.run("combine a and b into c", model, { mode: "yolo" });

    expect(result.status).toBe("completed");
    expect(await h.text("c.txt")).toBe("alpha\nbeta\n");
    expect(seen[0]).toMatchObject({
      type: "json",
      value: { type: "output", data: { path: "a.txt", content: "alpha\n" } },
    });
    expect(result.text).toBe("Reading.\n\nDone: c.txt holds both files.");
  });

  it("refuses a gated call headless (ask = deny), tells the model why, and the model recovers", async () => {
    const h = await open();
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "c.txt", content: "x" } }] },
      (call) => {
        const [refusal] = toolResultsIn(call);
        expect(refusal?.output).toMatchObject({ type: "error-json", value: { type: "error" } });
        expect(JSON.stringify(refusal?.output)).toContain("headless");
        return { text: "I could not write c.txt: writing needs approval here." };
      },
    ]);
    const { result, events } = await h.run("write c", model);

    expect(result.status).toBe("completed");
    expect(await h.text("c.txt")).toBeUndefined();
    const [approval] = eventsOf(events, "approval");
    expect(approval).toMatchObject({ toolName: "write", decision: "deny", toolCallId: "call-0-0" });
    expect(approval?.reason).toContain("headless");
    expect(result.text).toContain("could not write");
  });

  it("marks a result the policy refused as denied (as the audit says), and an ordinary failure not", async () => {
    const h = await open({
      agent: { permissions: [{ permission: "read", pattern: "secret.txt", action: "deny" }] },
    });
    await h.put("secret.txt", "s");
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "read", input: { path: "secret.txt" } },
          { name: "read", input: { path: "missing.txt" } },
        ],
      },
      { text: "done" },
    ]);
    const { events } = await h.run("read both", model);
    const results = eventsOf(events, "tool-result");
    expect(results.map((r) => [r.envelope.type, r.denied])).toEqual([
      ["error", true],
      ["error", undefined],
    ]);
    // A person's refusal is a denial too.
    const { events: asked } = await h.run(
      "write c",
      scriptedModel([
        { toolCalls: [{ name: "write", input: { path: "c.txt", content: "x" } }] },
        { text: "ok" },
      ]),
      { approver: async () => "reject" },
    );
    expect(eventsOf(asked, "tool-result").map((r) => r.denied)).toEqual([true]);
  });

  it("reports an approval a person gave", async () => {
    const h = await open();
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "c.txt", content: "x" } }] },
      { text: "ok" },
    ]);
    const { events } = await h.run("write c", model, { approver: async () => "once" });
    expect(eventsOf(events, "approval")).toEqual([
      {
        type: "approval",
        step: 0,
        toolCallId: "call-0-0",
        toolName: "write",
        decision: "allow",
        reason: "approved once by the user",
      },
    ]);
    expect(await h.text("c.txt")).toBe("x");
  });

  it("tells the model no one answered (not that the user refused) when the window that asked went away", async () => {
    const h = await open();
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "c.txt", content: "x" } }] },
      (call) => {
        const [result] = toolResultsIn(call);
        const said = JSON.stringify(result?.output);
        expect(said).toContain(
          "No one answered the approval for this write call (the window that asked was closed)",
        );
        expect(said).not.toContain("rejected");
        return { text: "I will ask again later." };
      },
    ]);
    const { events } = await h.run("write c", model, { approver: async () => "unanswered" });
    expect(eventsOf(events, "approval")).toEqual([
      expect.objectContaining({
        decision: "deny",
        reason: "no one answered: the window that asked was closed",
      }),
    ]);
    expect(await h.text("c.txt")).toBeUndefined();
  });

  it("hides denied tools from the model and refuses them at dispatch when the model names them anyway", async () => {
    const h = await open({ agent: { tools: { allow: ["*"], deny: ["write", "bash"] } } });
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "c.txt", content: "x" } }] },
      (call) => {
        const [refusal] = toolResultsIn(call);
        expect(JSON.stringify(refusal?.output)).toContain("write");
        return { text: "I cannot write files here." };
      },
    ]);
    const { result, events } = await h.run("write c", model, { mode: "yolo" });

    const offered = toolNamesOffered(model.doStreamCalls[0]!);
    expect(offered).toContain("read");
    expect(offered).not.toContain("write");
    expect(offered).not.toContain("bash");
    expect(await h.text("c.txt")).toBeUndefined();
    expect(eventsOf(events, "tool-result")[0]).toMatchObject({
      toolName: "write",
      envelope: { type: "error" },
    });
    h.engine.audit().flush();
    expect(h.engine.audit().query({ sessionId: result.sessionId })).toEqual([]);
    expect(result.status).toBe("completed");
  });

  it("refuses a question headless with a question-refused event, and the model goes on", async () => {
    const headless = HEADLESS_QUESTION_ERROR;
    const question = defineBuiltin({
      id: "question",
      description: "Ask the person.",
      schema: z.strictObject({ questions: z.array(z.strictObject({ question: z.string() })) }),
      requires: {},
      readOnly: true,
      kind: "other",
      execute: async () => {
        throw new ToolCallError(headless);
      },
    });
    const h = await open({ tools: [question] });
    const model = scriptedModel([
      { toolCalls: [{ name: "question", input: { questions: [{ question: "Which file?" }] } }] },
      { text: "I will assume a.txt." },
    ]);
    const { result, events } = await h.run("edit the file", model);
    expect(eventsOf(events, "question-refused")).toEqual([
      { type: "question-refused", step: 0, toolCallId: "call-0-0", message: headless },
    ]);
    expect(result.status).toBe("completed");
  });

  it("does not call a headless question with wrong arguments refused: the model reads what to fix", async () => {
    const h = await open();
    const model = scriptedModel([
      { toolCalls: [{ name: "question", input: { question: "Which file?" } }] },
      { text: "I will assume a.txt." },
    ]);
    const { events } = await h.run("edit the file", model);
    expect(eventsOf(events, "question-refused")).toEqual([]);
    expect(eventsOf(events, "tool-result")[0]?.envelope).toMatchObject({
      type: "error",
      error_text: expect.stringContaining(
        'Invalid arguments for question: missing required property "questions"',
      ),
    });
  });
});

/** A deferred tool: shown by name only until tool_search loads its definition. */
function deferredConverter(): AnyTool {
  return {
    ...defineBuiltin({
      id: "convert_currency",
      description: "Convert an amount between currencies.",
      schema: z.strictObject({ amount: z.number(), to: z.string() }),
      requires: {},
      readOnly: true,
      kind: "other",
      execute: async ({ amount, to }) => ({ amount: amount * 2, currency: to }),
    }),
    defer: true,
  };
}

describe("deferred tools", () => {
  it("shows a deferred tool by name only until tool_search loads it, then lets the model call it", async () => {
    const h = await open({ tools: [deferredConverter()] });
    const model = scriptedModel([
      { toolCalls: [{ name: "tool_search", input: { query: "convert currency" } }] },
      { toolCalls: [{ name: "convert_currency", input: { amount: 21, to: "EUR" } }] },
      { text: "42 EUR." },
    ]);
    const { result, events } = await h.run("convert 21 to EUR", model);

    expect(toolNamesOffered(model.doStreamCalls[0]!)).toContain("tool_search");
    expect(toolNamesOffered(model.doStreamCalls[0]!)).not.toContain("convert_currency");
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt[0])).toContain("convert_currency");
    expect(toolNamesOffered(model.doStreamCalls[1]!)).toContain("convert_currency");
    expect(eventsOf(events, "tool-result").at(-1)?.envelope).toMatchObject({
      type: "output",
      data: { amount: 42 },
    });
    expect(result.status).toBe("completed");
  });
});

describe("calls the AI SDK refuses before any tool runs", () => {
  it("are answered in Lathe's words (a deferred tool says how to load it), to the model and in the events", async () => {
    const h = await open({ tools: [deferredConverter()] });
    const expected = [
      /^Tool "convert_currency" is available but its definition is not loaded yet, so it was not run\. Call tool_search with the query "convert_currency" to load it, then call it again\.$/,
      /^Unknown tool "nope", so nothing was run\. Available tools: .*\bglob\b.*tool_search/,
      /^The arguments of this glob call are not valid JSON \(.+\), so it was not run\. Send the arguments again as one JSON object that fits the tool's schema\.$/,
    ];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "convert_currency", input: { amount: 1, to: "EUR" } },
          { name: "nope", input: {} },
          { name: "glob", input: '{"pattern": "*' },
        ],
      },
      (call) => {
        const said = toolResultsIn(call).map(
          (r) => (r.output as { value?: { error_text?: string } }).value?.error_text ?? "",
        );
        said.forEach((text, i) => expect(text).toMatch(expected[i] as RegExp));
        // Nothing of the SDK's own error text reaches the model.
        expect(JSON.stringify(call.prompt)).not.toMatch(/AI_\w+Error/);
        return { text: "I will load it first." };
      },
    ]);
    const { events, result } = await h.run("convert", model);
    const texts = eventsOf(events, "tool-result").map((e) =>
      e.envelope.type === "error" ? e.envelope.error_text : "",
    );
    texts.forEach((text, i) => expect(text).toMatch(expected[i] as RegExp));
    expect(texts).toHaveLength(3);
    expect(result.status).toBe("completed");
  });
});

describe("budgets", () => {
  it("refuses calls beyond maxToolCalls with an error the model reads", async () => {
    const h = await open({ agent: { budgets: { maxRounds: 10, maxToolCalls: 2, maxCallsPerTool: {} } } });
    const glob = { name: "glob", input: { pattern: "*" } };
    const model = scriptedModel([{ toolCalls: [glob, glob, glob] }, { text: "enough" }]);
    const { events } = await h.run("look", model);
    const results = resultsInCallOrder(events);
    expect(results.map((r) => r.envelope.type)).toEqual(["output", "output", "error"]);
    expect(results[2]?.envelope).toMatchObject({
      error_text: expect.stringContaining("budgets.maxToolCalls"),
    });
  });

  it("refuses calls of one tool beyond maxCallsPerTool and lets the others through", async () => {
    const h = await open({
      agent: { budgets: { maxRounds: 10, maxToolCalls: 50, maxCallsPerTool: { read: 1 } } },
    });
    await h.put("a.txt", "a");
    await h.put("b.txt", "b");
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "read", input: { path: "a.txt" } },
          { name: "read", input: { path: "b.txt" } },
          { name: "glob", input: { pattern: "*.txt" } },
        ],
      },
      { text: "ok" },
    ]);
    const { events } = await h.run("look", model);
    const results = resultsInCallOrder(events);
    expect(results.map((r) => [r.toolName, r.envelope.type])).toEqual([
      ["read", "output"],
      ["read", "error"],
      ["glob", "output"],
    ]);
    expect(results[1]?.envelope).toMatchObject({
      error_text: expect.stringContaining("budgets.maxCallsPerTool.read"),
    });
  });

  it("stops after maxRounds model steps, with status max-rounds", async () => {
    const h = await open({ agent: { budgets: { maxRounds: 2, maxToolCalls: 50, maxCallsPerTool: {} } } });
    const again = { toolCalls: [{ name: "glob", input: { pattern: "*" } }] };
    const model = scriptedModel([again, again, again]);
    const { result, events } = await h.run("loop forever", model);
    expect(model.doStreamCalls).toHaveLength(2);
    expect(result.status).toBe("max-rounds");
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "max-rounds", steps: 2 });
  });
});

describe("a model that answers nothing", () => {
  it("is said in a notice, not passed off silently as done", async () => {
    const h = await open();
    const { result, events } = await h.run("hello?", scriptedModel([{}]));
    expect(result).toMatchObject({ status: "completed", text: "" });
    expect(eventsOf(events, "notice")).toEqual([
      {
        type: "notice",
        message: expect.stringMatching(
          /ended its turn without answering: no text and no tool call\. Ask again/,
        ),
      },
    ]);
  });

  it("says nothing of the kind when the model answered", async () => {
    const h = await open();
    const { events } = await h.run("hello?", scriptedModel([{ text: "Hi." }]));
    expect(eventsOf(events, "notice")).toEqual([]);
  });
});

describe("a run asked to check its model first (the app)", () => {
  const withPreflight = (
    h: AgentHarness,
    model: LanguageModel,
    preflight: () => Promise<string[] | undefined>,
    asked = true,
  ) => {
    const events: RunEvent[] = [];
    const result = runAgent({
      engine: h.engine,
      agent: h.agent,
      model: { spec: { provider: "scripted", model: "scripted-model" }, model, preflight },
      prompt: "hello?",
      flushIntervalMs: 5,
      preflight: asked,
      onEvent: (e) => events.push(e),
    });
    return result.then((r) => ({ result: r, events }));
  };

  it("says what the check noticed once, after the start and before the first request", async () => {
    const h = await open();
    const { result, events } = await withPreflight(h, scriptedModel([{ text: "Hi." }]), async () => [
      "LATHE_GGUF_CONTEXT_SIZE=65536 is more than the 4096 tokens tiny.gguf was trained for",
    ]);
    expect(result.status).toBe("completed");
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(["start", "notice", "step-start"]);
    expect(eventsOf(events, "notice")[0]?.message).toMatch(/more than the 4096 tokens/);
  });

  it("fails the run with the check's message, without asking the model", async () => {
    const h = await open();
    const model = scriptedModel([]);
    const { result, events } = await withPreflight(h, model, async () => {
      throw new Error("A context of 1000000 tokens needs 60 GB, but 3 GB is free.");
    });
    expect(result.status).toBe("failed");
    expect(eventsOf(events, "error")[0]?.message).toMatch(/needs 60 GB, but 3 GB is free/);
    expect(eventsOf(events, "step-start")).toEqual([]);
  });

  it("does not check when not asked (lathe run checked before it started)", async () => {
    const h = await open();
    let checked = 0;
    const preflight = async () => {
      checked++;
      return ["never said"];
    };
    const { result, events } = await withPreflight(h, scriptedModel([{ text: "Hi." }]), preflight, false);
    expect(result.status).toBe("completed");
    expect(checked).toBe(0);
    expect(eventsOf(events, "notice")).toEqual([]);
  });
});

describe("a model that keeps making the same failing call", () => {
  it("is told from the third time that repeating it will not help, and stopped at the fifth", async () => {
    const h = await open();
    const missing = { toolCalls: [{ name: "read", input: { path: "missing.txt" } }] };
    const model = scriptedModel([missing, missing, missing, missing, missing, missing, { text: "never" }]);
    const { result, events } = await h.run("read missing.txt", model);
    // Five model steps, not the agent's 50: the sixth request is never made.
    expect(model.doStreamCalls).toHaveLength(5);
    const texts = eventsOf(events, "tool-result").map((r) =>
      r.envelope.type === "error" ? r.envelope.error_text : "",
    );
    expect(texts).toHaveLength(5);
    expect(texts.slice(0, 2).every((t) => !t.includes("Repeating it will not help"))).toBe(true);
    expect(texts[2]).toMatch(
      /This exact read call has now failed 3 times in this run with the same error\. Repeating it will not help/,
    );
    expect(texts[4]).toContain("failed 5 times");
    // What the model read is what it was told: the third result in the fourth request.
    expect(JSON.stringify(toolResultsIn(model.doStreamCalls[3]!))).toContain("failed 3 times");
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(
      /^The model made the same read call 5 times and it failed the same way each time .*so the run was stopped/,
    );
    expect(events.at(-1)).toMatchObject({
      type: "finish",
      status: "failed",
      finishReason: "repeated-failure",
    });
  });

  // Local models often send one call several times in a step. The model has not seen it fail
  // yet: that is one try, not five, and stopping the run there loses it for nothing.
  it("counts a call made several times in one step as one try", async () => {
    const h = await open();
    const read = { name: "read", input: { path: "missing.txt" } };
    const model = scriptedModel([
      { toolCalls: [read, read, read, read, read] },
      { text: "It is not there." },
    ]);
    const { result, events } = await h.run("read missing.txt", model);
    expect(result.status).toBe("completed");
    const texts = eventsOf(events, "tool-result").map((r) =>
      r.envelope.type === "error" ? r.envelope.error_text : "",
    );
    expect(texts).toHaveLength(5);
    expect(texts.some((t) => t.includes("Repeating it will not help"))).toBe(false);
  });

  it("still stops a model that repeats such a step", async () => {
    const h = await open();
    const read = { name: "read", input: { path: "missing.txt" } };
    const step = { toolCalls: [read, read] };
    const model = scriptedModel([step, step, step, step, step, step, { text: "never" }]);
    const { result } = await h.run("read missing.txt", model);
    expect(model.doStreamCalls).toHaveLength(5);
    expect(result.status).toBe("failed");
  });

  it("counts only the same call failing the same way: other arguments start afresh", async () => {
    const h = await open();
    const call = (file: string) => ({ toolCalls: [{ name: "read", input: { path: file } }] });
    const model = scriptedModel([
      call("a.txt"),
      call("b.txt"),
      call("a.txt"),
      call("c.txt"),
      call("b.txt"),
      { text: "giving up" },
    ]);
    const { result, events } = await h.run("read them", model);
    expect(result.status).toBe("completed");
    const texts = eventsOf(events, "tool-result").map((r) =>
      r.envelope.type === "error" ? r.envelope.error_text : "",
    );
    expect(texts.some((t) => t.includes("Repeating it will not help"))).toBe(false);
  });
});

describe("an answer cut off at a length limit", () => {
  it("fails the run at budgets.maxOutputTokens, saying which budget, and keeps the text", async () => {
    const h = await open({
      agent: { budgets: { maxRounds: 10, maxToolCalls: 50, maxCallsPerTool: {}, maxOutputTokens: 64 } },
    });
    const model = scriptedModel([{ text: "Here is the long report: first", cutOffAt: 64 }]);
    const { result, events } = await h.run("write a long report", model);
    expect(result.status).toBe("failed");
    expect(result.text).toBe("Here is the long report: first");
    expect(result.error).toMatch(/cut off: it reached the 64 tokens .*budgets\.maxOutputTokens/);
    expect(eventsOf(events, "error")).toEqual([{ type: "error", message: result.error }]);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "failed", finishReason: "length" });
  });

  it("fails the run when the server stops the answer short of the budget, saying so", async () => {
    const h = await open();
    const model = scriptedModel([{ text: "Half an answ", cutOffAt: 12 }]);
    const { result } = await h.run("answer", model);
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(
      /cut off after 12 tokens: the model or its server stopped it at a length limit/,
    );
  });

  it("goes on when the cut comes while the model makes a call: the call is not run, the model is told and answers", async () => {
    const h = await open();
    const told: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "glob", input: { pattern: "*" } }], cutOffAt: 30 },
      (call) => {
        told.push(...toolResultsIn(call).map((r) => JSON.stringify(r.output)));
        return { text: "Looked again." };
      },
    ]);
    const { result, events } = await h.run("look", model);
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Looked again.");
    // The call is not run, and the person and the model are told so.
    const envelopes = eventsOf(events, "tool-result").map((e) => e.envelope);
    expect(envelopes).toEqual([
      {
        type: "error",
        error_text: expect.stringMatching(/^This glob call was not run: its step ended at the output limit/),
        metadata: { duration_ms: 0 },
      },
    ]);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("This glob call was not run");
  });

  it("says a call cut at the embedded model's string cap was cut there, and how to send it instead", async () => {
    const h = await open();
    const model = scriptedModel([
      {
        toolCalls: [{ name: "write", input: { path: "big.txt", content: "x".repeat(32) } }],
        cutOffAt: 30,
        cutOffRaw: GGUF_STRING_CAP,
      },
      { text: "I will write it in parts." },
    ]);
    const { result, events } = await h.run("write a big file", model, { mode: "yolo" });
    expect(result.status).toBe("completed");
    expect(await h.text("big.txt")).toBeUndefined(); // nothing was written
    expect(eventsOf(events, "tool-result").map((e) => e.envelope)).toEqual([
      {
        type: "error",
        error_text:
          "This write call was not run: one of its arguments reached the longest string the embedded model may write in one (LATHE_GGUF_MAX_STRING, 32768 characters unless set), where the grammar closed it, so it is incomplete. Make the call again with shorter arguments: write big content in several smaller steps (write a first part, then add the rest with edit, one part per call).",
        metadata: { duration_ms: 0 },
      },
    ]);
  });

  it("stops at budgets.maxRounds rather than failing when the last round was a cut step with a call", async () => {
    const h = await open({
      agent: { budgets: { maxRounds: 1, maxToolCalls: 50, maxCallsPerTool: {}, maxOutputTokens: 64 } },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "glob", input: { pattern: "*" } }], cutOffAt: 64 }]);
    const { result, events } = await h.run("look", model);
    expect(result.status).toBe("max-rounds");
    expect(eventsOf(events, "tool-result")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "max-rounds", steps: 1 });
  });
});

describe("a tool call cut off at the output limit", () => {
  const CUT_OFF =
    /^This write call was cut off: you reached (the \d+ tokens you may write in one step \(budgets\.maxOutputTokens\)|your output limit) while writing its arguments \(finish reason "length"\), so they are incomplete and the call was not run\. Make the call again with shorter arguments: write big content in several smaller steps/;

  it("is answered as cut off, with how to fix it, to the model and in the events; nothing is written", async () => {
    const h = await open({
      agent: { budgets: { maxRounds: 10, maxToolCalls: 50, maxCallsPerTool: {}, maxOutputTokens: 64 } },
    });
    const model = scriptedModel([
      {
        toolCalls: [{ name: "write", input: '{"path": "big.txt", "content": "line 1\\nline 2\\nli' }],
        cutOffAt: 64,
      },
      (call) => {
        const said = toolResultsIn(call).map(
          (r) => (r.output as { value?: { error_text?: string } }).value?.error_text ?? "",
        );
        expect(said).toHaveLength(1);
        expect(said[0]).toMatch(CUT_OFF);
        expect(said[0]).toContain("the 64 tokens");
        expect(said[0]).not.toContain("not valid JSON");
        return { text: "I will write it in parts." };
      },
    ]);
    const { result, events } = await h.run("write big.txt", model);
    const results = eventsOf(events, "tool-result");
    expect(results).toHaveLength(1);
    expect(results[0]?.envelope).toMatchObject({ type: "error", error_text: expect.stringMatching(CUT_OFF) });
    // The answer comes before the step's end, as every tool result does.
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf("tool-result")).toBeLessThan(kinds.indexOf("step-finish"));
    expect(result.status).toBe("completed");
    expect(await h.text("big.txt")).toBeUndefined();
  });

  it("through the real OpenAI-compatible client: a stream that ends with finish_reason length mid-arguments", async () => {
    const fixture = await startOpenAICompatibleServer({
      replies: [
        {
          toolCalls: [{ name: "write", arguments: '{"path": "big.txt", "content": "aaaaaaaaaaaaaaaaaaaa' }],
          finishReason: "length",
        },
        { text: "Writing it in parts." },
      ],
    });
    try {
      const h = await open();
      const resolved = await defaultProviderRegistry().resolve("openai-compatible:m", {
        providers: { "openai-compatible": { baseURL: fixture.baseURL } },
      });
      const { result, events } = await h.run("write big.txt", resolved.model);
      expect(eventsOf(events, "tool-result")[0]?.envelope).toMatchObject({
        error_text: expect.stringMatching(CUT_OFF),
      });
      const told = fixture.requests[1]?.messages.find((m) => m.role === "tool");
      // The model reads the envelope the events carry (and the store keeps), as for any failed call.
      expect(JSON.parse(String(told?.content))).toEqual(eventsOf(events, "tool-result")[0]?.envelope);
      expect((JSON.parse(String(told?.content)) as { error_text: string }).error_text).toMatch(CUT_OFF);
      expect(result.status).toBe("completed");
    } finally {
      await fixture.close();
    }
  });

  it("a whole call beside it in the step is not run either, says so, and the model gets another step", async () => {
    const h = await open();
    let told: Array<{ toolName: string; output: unknown }> = [];
    let sentCalls: string[] = [];
    const model = scriptedModel([
      {
        text: "Writing both.",
        toolCalls: [
          { name: "write", input: { path: "a.txt", content: "A" } },
          { name: "write", input: '{"path": "b.txt", "content": "BBBB' },
        ],
        cutOffAt: 64,
      },
      (call) => {
        told = toolResultsIn(call);
        sentCalls = call.prompt.flatMap((m) =>
          m.role === "assistant"
            ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []))
            : [],
        );
        return { text: "I will write them one at a time." };
      },
    ]);
    const { result, events } = await h.run("write a.txt and b.txt", model, { mode: "yolo" });
    // The AI SDK runs no call of a step that ended at the length limit: a.txt is not written…
    expect(await h.text("a.txt")).toBeUndefined();
    expect(await h.text("b.txt")).toBeUndefined();
    // …and the call is not lost: the person and the model are told it was not run, and why.
    expect(
      eventsOf(events, "tool-call")
        .map((e) => e.toolCallId)
        .sort(),
    ).toEqual(["call-0-0", "call-0-1"]);
    const results = resultsInCallOrder(events);
    expect(results.map((r) => r.toolCallId)).toEqual(["call-0-0", "call-0-1"]);
    expect(results[0]?.envelope).toMatchObject({
      type: "error",
      error_text: expect.stringMatching(
        /^This write call was not run: its step ended at the output limit \(finish reason "length"\) before it was complete, and no call of such a step is run\. Make it again/,
      ),
    });
    expect(results[1]?.envelope).toMatchObject({ error_text: expect.stringMatching(CUT_OFF) });
    const kinds = events.map((e) => e.type);
    expect(kinds.lastIndexOf("tool-result")).toBeLessThan(kinds.indexOf("step-finish"));
    // The run goes on: the model reads both answers, as the events carry them (in the order
    // they announced the calls: the cut one as it streamed, the whole one at the step's end).
    expect(sentCalls).toEqual(["call-0-1", "call-0-0"]);
    expect(told.map((t) => t.output)).toEqual([
      { type: "error-json", value: results[1]?.envelope },
      { type: "error-json", value: results[0]?.envelope },
    ]);
    expect(result.status).toBe("completed");
    expect(result.steps).toBe(2);
    expect(result.text).toBe("Writing both.\n\nI will write them one at a time.");
    const stored = h.engine.conversations().messages(result.sessionId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(stored[1]?.parts.filter((p) => p.type === "tool-call")).toHaveLength(2);
    expect(stored[2]?.parts.map((p) => (p.type === "tool-result" ? p.envelope : undefined))).toEqual(
      expect.arrayContaining(results.map((r) => r.envelope)),
    );
  });

  it("through the real OpenAI-compatible client: the run goes on, and a resume sends the model that step as the run did", async () => {
    const fixture = await startOpenAICompatibleServer({
      replies: [
        {
          toolCalls: [
            { name: "write", arguments: { path: "a.txt", content: "A" } },
            { name: "write", arguments: '{"path": "b.txt", "content": "bbbbbbbbbbbbbbbbbbbb' },
          ],
          finishReason: "length",
        },
        { text: "Writing them one at a time." },
        { text: "Resumed." },
      ],
    });
    try {
      const h = await open();
      const resolved = await defaultProviderRegistry().resolve("openai-compatible:m", {
        providers: { "openai-compatible": { baseURL: fixture.baseURL } },
      });
      const { result, events } = await h.run("write a.txt and b.txt", resolved.model, { mode: "yolo" });
      expect(result.status).toBe("completed");
      expect(await h.text("a.txt")).toBeUndefined();
      const second = fixture.requests[1]?.messages ?? [];
      const answers = second.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)));
      expect(answers).toHaveLength(2);
      expect(answers).toEqual(expect.arrayContaining(eventsOf(events, "tool-result").map((e) => e.envelope)));
      const resumed = await runAgent({
        engine: h.engine,
        agent: h.agent,
        model: resolved,
        prompt: "go on",
        sessionId: result.sessionId,
        contextTokens: 1_000_000,
      });
      expect(resumed.status).toBe("completed");
      // The history the resume sends holds the cut step as the continuous run sent it.
      const step = (messages: typeof second) =>
        messages.filter((m) => m.role === "tool" || (m.role === "assistant" && m.tool_calls !== undefined));
      expect(step(fixture.requests[2]?.messages ?? [])).toEqual(step(second));
    } finally {
      await fixture.close();
    }
  });

  it("is still answered as not valid JSON when the step ended normally", async () => {
    const h = await open();
    const model = scriptedModel([
      { toolCalls: [{ name: "write", input: '{"path": "a.txt", "content": "x' }] },
      { text: "ok" },
    ]);
    const { events } = await h.run("write", model);
    expect(eventsOf(events, "tool-result")[0]?.envelope).toMatchObject({
      error_text: expect.stringMatching(/^The arguments of this write call are not valid JSON/),
    });
  });
});

describe("an answer cut short", () => {
  it("by a dropped connection: the run fails saying so, and the partial text is kept marked as cut off, not as an answer", async () => {
    let healthy = false;
    const fixture = await startOpenAICompatibleServer({
      replies: () =>
        healthy
          ? { text: "Here is the whole answer." }
          : { text: "The first half of an answ", dropAfterEvents: 4 },
      chunkChars: 5,
    });
    const events: RunEvent[] = [];
    try {
      const h = await open();
      const resolved = await defaultProviderRegistry().resolve("openai-compatible:m", {
        providers: { "openai-compatible": { baseURL: fixture.baseURL } },
      });
      const first = await runAgent({
        engine: h.engine,
        agent: h.agent,
        model: resolved,
        prompt: "explain",
        contextTokens: 1_000_000,
        onEvent: (event) => events.push(event),
      });
      expect(first.status).toBe("failed");
      expect(first.error).toMatch(
        /closed the connection before the answer was complete \(\w+\): it may have crashed or restarted/,
      );
      // Hosts are told it was the connection, so they can offer to go on as it is.
      expect(first.connectionDropped).toBe(true);
      expect(events.filter((e) => e.type === "error")).toEqual([
        { type: "error", message: first.error, cause: "connection-dropped" },
      ]);
      const stored = h.engine.conversations().messages(first.sessionId);
      const partial = stored.find((m) => m.role === "assistant")?.parts[0];
      expect(partial).toEqual({ type: "text", text: "The first half ", cutOff: true });

      // A second engine on the same file (as `lathe run --resume` opens it) reads the mark back,
      // and the model is told the earlier answer was cut off.
      healthy = true;
      const again = await runAgent({
        engine: await h.reopen(),
        agent: h.agent,
        model: resolved,
        prompt: "go on",
        sessionId: first.sessionId,
        contextTokens: 1_000_000,
      });
      expect(again.status).toBe("completed");
      const history = fixture.requests.at(-1)?.messages ?? [];
      expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
      expect(history[2]?.content).toBe(`The first half ${CUT_OFF_NOTE}`);
    } finally {
      await fixture.close();
    }
  });

  it("by a dropped connection after a whole call: the call is kept, answered as not run, and a resume knows of it", async () => {
    // Providers that hand over each call as soon as it is whole (Anthropic's, OpenAI's) do so
    // before the step ends; the connection then drops before the model finished its step.
    const h = await open();
    const NOT_RUN =
      /^This write call was not run: the model's answer broke off \(the connection dropped, or the model or its server failed\) before its step was complete, and no call of an unfinished step is run\./;
    let toldOnResume: string[] = [];
    const model = scriptedModel([
      {
        text: "Writing a.",
        toolCalls: [{ name: "write", input: { path: "a.txt", content: "A" } }],
        drop: true,
      },
      (call) => {
        toldOnResume = toolResultsIn(call).map(
          (r) => (r.output as { value?: { error_text?: string } }).value?.error_text ?? "",
        );
        return { text: "Writing it now." };
      },
    ]);
    const { result: first, events } = await h.run("write a.txt", model, { mode: "yolo" });
    expect(first.status).toBe("failed");
    expect(await h.text("a.txt")).toBeUndefined();
    // The person sees the call and that it was not run…
    expect(eventsOf(events, "tool-call")).toEqual([
      expect.objectContaining({ toolName: "write", input: { path: "a.txt", content: "A" } }),
    ]);
    expect(eventsOf(events, "tool-result").map((e) => e.envelope)).toEqual([
      { type: "error", error_text: expect.stringMatching(NOT_RUN), metadata: { duration_ms: 0 } },
    ]);
    // …and the history keeps it, so the resumed model reads the truth about it.
    const stored = h.engine.conversations().messages(first.sessionId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(stored[1]?.parts.map((p) => p.type)).toEqual(["text", "tool-call"]);
    const { result: again } = await h.run("go on", model, { sessionId: first.sessionId });
    expect(again.status).toBe("completed");
    expect(toldOnResume).toHaveLength(1);
    expect(toldOnResume[0]).toMatch(NOT_RUN);
  });

  it("stopped after a whole call, before the step finished: the call is kept and answered as not run", async () => {
    const h = await open();
    const controller = new AbortController();
    const model = scriptedModel([
      {
        text: "Writing.",
        toolCalls: [{ name: "write", input: { path: "a.txt", content: "A" } }],
        hang: true,
      },
    ]);
    const { result, events } = await h.run("write a.txt", model, {
      mode: "yolo",
      signal: controller.signal,
      onEvent: (e) => {
        // Once the stream's parts (the call among them) have gone through.
        if (e.type === "text") setTimeout(() => controller.abort(new Error("stopped by the person")), 20);
      },
    });
    expect(result.status).toBe("aborted");
    expect(await h.text("a.txt")).toBeUndefined();
    expect(eventsOf(events, "tool-result").map((e) => e.envelope)).toEqual([
      {
        type: "error",
        error_text: expect.stringMatching(
          /^This write call was not run: the run was stopped before the model finished its step/,
        ),
        metadata: { duration_ms: 0 },
      },
    ]);
    const stored = h.engine.conversations().messages(result.sessionId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("a finished answer is kept as it is", async () => {
    const h = await open();
    const { result } = await h.run("hi", scriptedModel([{ text: "Hello there." }]));
    const stored = h.engine.conversations().messages(result.sessionId);
    expect(stored.find((m) => m.role === "assistant")?.parts).toEqual([
      { type: "text", text: "Hello there." },
    ]);
  });

  it("at the output limit: the text is kept marked as cut off", async () => {
    const h = await open();
    const { result } = await h.run("long", scriptedModel([{ text: "Half an answ", cutOffAt: 12 }]));
    const stored = h.engine.conversations().messages(result.sessionId);
    expect(stored.find((m) => m.role === "assistant")?.parts).toEqual([
      { type: "text", text: "Half an answ", cutOff: true },
    ]);
  });

  it.each([
    { how: "at the output limit", step: { text: "Half an answ", cutOffAt: 12 }, stop: false },
    { how: "by a dropped connection", step: { text: "Half an answ", drop: true }, stop: false },
    { how: "by a stop", step: { text: "Half an answ", hang: true }, stop: true },
  ])(
    "$how: the events say so too, live and in a replay, after the text and before the step ends",
    async ({ step, stop }) => {
      const h = await open();
      const controller = new AbortController();
      const { result, events } = await h.run("long", scriptedModel([step]), {
        signal: controller.signal,
        onEvent: (e) => {
          if (stop && e.type === "text" && !e.cutOff) setTimeout(() => controller.abort(), 20);
        },
      });
      expect(result.status).not.toBe("completed");
      const texts = eventsOf(events, "text");
      expect(texts.at(-1)).toEqual({ type: "text", step: 0, text: "", cutOff: true });
      expect(texts.filter((t) => t.cutOff)).toHaveLength(1);
      const kinds = events.map((e) => e.type);
      expect(kinds.lastIndexOf("text")).toBeLessThan(kinds.indexOf("finish"));
      if (kinds.includes("step-finish"))
        expect(kinds.lastIndexOf("text")).toBeLessThan(kinds.indexOf("step-finish"));
      const replayed: RunEvent[] = [];
      replaySession(h.engine, result.sessionId, (e) => replayed.push(e));
      expect(mergeDeltas(replayed).filter((e) => e.type === "text")).toEqual([
        { type: "text", step: 0, text: "Half an answ", cutOff: true },
      ]);
    },
  );

  it("a whole answer, or text followed by a call, carries no cut-off mark", async () => {
    const h = await open();
    const { events } = await h.run(
      "look",
      scriptedModel([
        { text: "Looking.", toolCalls: [{ name: "glob", input: { pattern: "*" } }], cutOffAt: 30 },
        { text: "Done." },
      ]),
    );
    expect(eventsOf(events, "text").filter((t) => t.cutOff)).toEqual([]);
  });
});

describe("a resume sends the model what a continuous run sent", () => {
  // A refused call's step, then a second request: the continuous run's history; a resume of the
  // session must send the same messages for that step (a model sees no difference, and a provider
  // that wants an object as a call's input, as Anthropic's does, gets one).
  const rows: Array<{ name: string; call: { name: string; input: unknown }; cutOffAt?: number }> = [
    {
      name: "a call cut off at the output limit",
      call: { name: "write", input: '{"path": "a.txt", "content": "x' },
      cutOffAt: 64,
    },
    { name: "arguments that are not JSON", call: { name: "write", input: '{"path": "a.txt", content: x}' } },
    { name: "an unknown tool", call: { name: "no_such_tool", input: { path: "a.txt" } } },
  ];
  it.each(rows)("$name", async ({ call, cutOffAt }) => {
    const h = await open();
    let continuous: LanguageModelV4Prompt = [];
    const first = await h.run(
      "write a.txt",
      scriptedModel([
        { text: "Writing.", toolCalls: [call], ...(cutOffAt !== undefined ? { cutOffAt } : {}) },
        (request) => {
          continuous = request.prompt;
          return { text: "I could not." };
        },
      ]),
    );
    expect(first.result.status).toBe("completed");
    let resumed: LanguageModelV4Prompt = [];
    const again = await h.run(
      "try again",
      scriptedModel([
        (request) => {
          resumed = request.prompt;
          return { text: "ok" };
        },
      ]),
      { sessionId: first.result.sessionId },
    );
    expect(again.result.status).toBe("completed");
    expect(continuous.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(resumed.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(resumed.slice(1, 4)).toEqual(continuous.slice(1));
  });
});

describe("abort", () => {
  it("stops the model stream and every running tool promptly", async () => {
    let stopped = 0;
    const waitForAbort = defineBuiltin({
      id: "wait_for_abort",
      description: "Waits until the call is aborted.",
      schema: z.strictObject({ n: z.number() }),
      requires: {},
      readOnly: true,
      kind: "other",
      timeoutMs: 60_000,
      execute: (_args, runtime) =>
        new Promise((resolve) => {
          runtime.signal.addEventListener("abort", () => {
            stopped++;
            resolve({ stopped: true });
          });
        }),
    });
    const h = await open({ tools: [waitForAbort] });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "wait_for_abort", input: { n: 1 } },
          { name: "wait_for_abort", input: { n: 2 } },
        ],
      },
      { text: "never asked" },
    ]);
    const controller = new AbortController();
    let calls = 0;
    let abortedAt = 0;
    const { result, events } = await h.run("wait", model, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "tool-call" && ++calls === 2) {
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort(new Error("stop"));
          }, 30);
        }
      },
    });
    const stoppedAfter = performance.now() - abortedAt;

    expect(result.status).toBe("aborted");
    expect(stoppedAfter).toBeLessThan(1_000);
    expect(stopped).toBe(2);
    expect(model.doStreamCalls).toHaveLength(1);
    const results = eventsOf(events, "tool-result");
    expect(results).toHaveLength(2);
    for (const r of results)
      expect(r.envelope).toMatchObject({ type: "error", error_text: expect.stringContaining("aborted") });
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "aborted" });
    // The cut-short step is still a valid history: both calls, each with its result.
    const messages = h.engine.conversations().messages(result.sessionId);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[2]?.parts).toHaveLength(2);
  });

  it("stops a model that is still streaming and keeps the text it wrote", async () => {
    const h = await open();
    const model = scriptedModel([{ text: "Let me think", hang: true }]);
    const controller = new AbortController();
    const { result } = await h.run("think", model, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "text") setTimeout(() => controller.abort(), 10);
      },
    });
    expect(result.status).toBe("aborted");
    const messages = h.engine.conversations().messages(result.sessionId);
    expect(messages.at(-1)).toMatchObject({
      role: "assistant",
      parts: [{ type: "text", text: "Let me think" }],
    });
  });

  it.each([
    {
      reason: new RunStopped("the tab that started it was closed"),
      said: "the tab that started it was closed",
    },
    { reason: new Error("stopped by the person"), said: undefined },
    { reason: undefined, said: undefined },
  ])("says why it was stopped when the host gave a reason ($said)", async ({ reason, said }) => {
    const h = await open();
    const model = scriptedModel([{ text: "Working on it", hang: true }]);
    const controller = new AbortController();
    const { result, events } = await h.run("work", model, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "text") setTimeout(() => controller.abort(reason), 10);
      },
    });
    expect(result.status).toBe("aborted");
    const finish = eventsOf(events, "finish")[0]!;
    expect(finish.stoppedBecause).toBe(said);
    // The record keeps it: a tab that opens the chat later reads the same reason.
    const recorded = h.engine
      .conversations()
      .events(result.sessionId)
      .map((e) => e.data);
    expect(recorded.at(-1)).toEqual(finish);
  });
});

describe("sessions", () => {
  it("resumes after a crash from the last complete message, in a new engine", async () => {
    const h = await open();
    const first = scriptedModel([
      { toolCalls: [{ name: "write", input: { path: "notes.txt", content: "one" } }] },
      { text: "Now I will think for a long time", hang: true },
    ]);
    const controller = new AbortController();
    let sessionId = "";
    let stepOneDone!: () => void;
    const stepOne = new Promise<void>((resolve) => (stepOneDone = resolve));
    const running = h.run("write notes", first, {
      mode: "yolo",
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "start") sessionId = e.sessionId;
        if (e.type === "step-finish" && e.step === 0) stepOneDone();
      },
    });
    await stepOne;
    await sleep(50);
    // The crash: what is on disk now is all a new process will find.
    const crashedHome = path.join(h.home, "..", "crashed-home");
    await mkdir(crashedHome);
    for (const f of ["lathe.db", "lathe.db-wal"])
      await copyFile(path.join(h.home, f), path.join(crashedHome, f));
    controller.abort();
    await running;

    const engine = await Engine.create({ root: h.root, latheHome: crashedHome });
    try {
      const prompts: unknown[] = [];
      const second = scriptedModel([
        (call) => {
          prompts.push(call.prompt);
          return { text: "Resumed." };
        },
      ]);
      const resumed = await runAgent({
        engine,
        agent: h.agent,
        model: { spec: { provider: "scripted", model: "m" }, model: second },
        prompt: "continue",
        sessionId,
      });
      expect(resumed.status).toBe("completed");
      const prompt = JSON.stringify(prompts[0]);
      expect(prompt).toContain("write notes");
      expect(prompt).toContain('"toolName":"write"');
      expect(prompt).toContain("notes.txt");
      expect(prompt).toContain("continue");
      expect(prompt).not.toContain("think for a long time");
      expect(await h.text("notes.txt")).toBe("one");
      const roles = engine
        .conversations()
        .messages(sessionId)
        .map((m) => m.role);
      expect(roles).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    } finally {
      await engine.close();
    }
  });

  it("replays a session's events deterministically without calling the model or any tool", async () => {
    const h = await open();
    await h.put("a.txt", "alpha\n");
    const model = scriptedModel([
      {
        reasoning: "I should read it.",
        text: "Reading a.",
        toolCalls: [{ name: "read", input: { path: "a.txt" } }],
      },
      { toolCalls: [{ name: "write", input: { path: "b.txt", content: "copy" } }] },
      { text: "Copied a to b." },
    ]);
    const { result, events } = await h.run("copy", model, { mode: "yolo" });
    expect(result.status).toBe("completed");

    const started: string[] = [];
    h.engine.events.on("ToolInvocationStarted", (e) => started.push(e.toolId));
    const replayed: RunEvent[] = [];
    replaySession(h.engine, result.sessionId, (e) => replayed.push(e));
    const again: RunEvent[] = [];
    replaySession(h.engine, result.sessionId, (e) => again.push(e));

    // The same events; text deltas may come back joined into fewer, larger pieces. How many are
    // joined depends on when the writer's flush timer fires (on a loaded machine, between two
    // deltas): conversation-writer.test.ts checks the joining itself, on a timer it controls.
    expect(replayed.length).toBeLessThanOrEqual(events.length);
    expect(mergeDeltas(replayed)).toEqual(mergeDeltas(events));
    expect(again).toEqual(replayed);
    expect(started).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(3);
  });
});

describe("models without tool support", () => {
  it("falls back to a plain chat with a visible notice when the server refuses tools", async () => {
    const h = await open();
    const model = scriptedModel([{ text: "Hello, I can only chat." }]);
    const stream = model.doStream;
    let refused = 0;
    model.doStream = async (call) => {
      if (call.tools && call.tools.length > 0) {
        refused++;
        throw new APICallError({
          message: "Bad Request",
          url: "http://127.0.0.1:11434/v1/chat/completions",
          requestBodyValues: {},
          statusCode: 400,
          responseBody: '{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools"}}',
          isRetryable: false,
        });
      }
      return stream(call);
    };
    const { result, events } = await h.run("hi", model);
    expect(refused).toBe(1);
    expect(result.status).toBe("completed");
    expect(eventsOf(events, "notice")[0]?.message).toMatch(
      /does not support tool calls, so this is a plain chat/,
    );
    expect(result.text).toBe("Hello, I can only chat.");
  });

  it("runs a plain chat from the start when the provider knows the model has no tools", async () => {
    const h = await open();
    const model = scriptedModel([{ text: "Just chatting." }]);
    const events: RunEvent[] = [];
    const result = await runAgent({
      engine: h.engine,
      agent: h.agent,
      model: { spec: { provider: "scripted", model: "m" }, model, supportsTools: false },
      prompt: "hi",
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe("completed");
    expect(model.doStreamCalls[0]?.tools ?? []).toEqual([]);
    expect(eventsOf(events, "notice")[0]?.message).toContain("plain chat");
  });

  it("fails the run with the provider's explanation when the model call fails otherwise", async () => {
    const h = await open();
    const model = scriptedModel([]);
    model.doStream = async () => {
      throw Object.assign(new TypeError("fetch failed"), {
        cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
      });
    };
    const events: RunEvent[] = [];
    const result = await runAgent({
      engine: h.engine,
      agent: h.agent,
      model: {
        spec: { provider: "ollama", model: "m" },
        model,
        explainError: () =>
          "Ollama is not running on http://127.0.0.1:11434: start it with `ollama serve` or pick another provider.",
      },
      prompt: "hi",
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe("failed");
    expect(result.error).toContain("Ollama is not running");
    expect(eventsOf(events, "error")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "failed" });
  });
});

describe("the tokens of a run that fails", () => {
  // The steps that finished before the failure used their tokens: the finish event and the
  // last line (`lathe: failed, N tokens`) counted none of them, as the SDK's total only comes
  // with a finish the failed stream never sends.
  it("counts the steps it finished before the failing one", async () => {
    const h = await open();
    await h.put("a.txt", "alpha\n");
    const model = scriptedModel([
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read", input: { path: "a.txt" } }] },
      { text: "Half an answ", drop: true },
    ]);
    const { result, events } = await h.run("read twice", model, { mode: "yolo" });
    expect(result.status).toBe("failed");
    const finished = eventsOf(events, "step-finish");
    expect(finished).toHaveLength(2);
    const stepTokens = finished.reduce((sum, e) => sum + (e.usage.totalTokens ?? 0), 0);
    expect(stepTokens).toBe(20);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "failed", usage: { totalTokens: 20 } });
    expect(result.usage.totalTokens).toBe(20);
  });
});
