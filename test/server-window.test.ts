import { afterEach, describe, expect, it } from "vitest";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { runAgent } from "../src/main/engine/agent/run-agent.ts";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import {
  startOpenAICompatibleServer,
  type ChatRequest,
  type FixtureServer,
} from "./fixtures/openai-compatible-server.ts";
import { openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";

// A host that checks the model inside the run (the app: `preflight: true`) learns the window of a
// local server there, while the run starts, and compacts before the server's context fills.

let harness: AgentHarness | undefined;
let server: FixtureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await harness?.cleanup();
  harness = undefined;
});

function asksForSummary(request: ChatRequest): boolean {
  return String(request.messages[0]?.content ?? "").includes("working notes that replace");
}

const long = (name: string, tokens: number): string => `${name} ${"x".repeat(tokens * 4)}`;

describe("a run on a local server whose window settings do not give", () => {
  it("asks the server while it starts and summarises before the window fills", async () => {
    harness = await openAgentHarness({ agent: { tools: { allow: ["read", "write"], deny: [] } } });
    let answers = 0;
    server = await startOpenAICompatibleServer({
      models: ["fixture-model"],
      chunkChars: 4_000,
      routes: { "GET /props": { default_generation_settings: { n_ctx: 4_000 } } },
      replies: (request) =>
        asksForSummary(request)
          ? { text: "Goals: APP-PATH-SUMMARY." }
          : { text: long(`ANSWER-${++answers}`, 1_000) },
    });
    const model = await defaultProviderRegistry().resolve("llamacpp:fixture-model", {
      providers: { llamacpp: { baseURL: server.baseURL } },
    });
    expect(model.contextTokens).toBeUndefined();
    let sessionId: string | undefined;
    const compactions: RunEvent[] = [];
    for (const prompt of ["one", "two", "three", "four"]) {
      const result = await runAgent({
        engine: harness.engine,
        agent: harness.agent,
        model,
        prompt,
        preflight: true,
        flushIntervalMs: 5,
        ...(sessionId ? { sessionId } : {}),
        onEvent: (e) => {
          if (e.type === "compaction") compactions.push(e);
        },
      });
      expect(result.status, result.error).toBe("completed");
      sessionId = result.sessionId;
    }
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ type: "compaction", reason: "context-near-full" });
    const last = server.requests.filter((r) => !asksForSummary(r)).at(-1);
    expect(JSON.stringify(last?.messages)).toContain("APP-PATH-SUMMARY");
    expect(JSON.stringify(last?.messages)).not.toContain("ANSWER-1 ");
    // Asked by each run as it starts (the summary requests within a run do not ask again).
    expect(server.paths.filter((p) => p === "GET /props")).toHaveLength(4);
  });

  it("asks again at the next run when the server restarted with another context, and a task shares its run's answer", async () => {
    harness = await openAgentHarness({ agent: { tools: { allow: ["read", "task"], deny: [] } } });
    let nCtx = 64_000;
    let request = 0;
    server = await startOpenAICompatibleServer({
      models: ["fixture-model"],
      routes: { "GET /props": () => ({ default_generation_settings: { n_ctx: nCtx } }) },
      // Each run: the parent starts a task, the task answers, the parent answers.
      replies: () =>
        ++request % 3 === 1
          ? { toolCalls: [{ name: "task", arguments: { description: "look", prompt: "Say hi." } }] }
          : { text: "done" },
    });
    const model = await defaultProviderRegistry().resolve("llamacpp:fixture-model", {
      providers: { llamacpp: { baseURL: server.baseURL } },
    });
    const props = (): number => server!.paths.filter((p) => p === "GET /props").length;
    const run = async (prompt: string) => {
      const events: RunEvent[] = [];
      const result = await runAgent({
        engine: harness!.engine,
        agent: harness!.agent,
        model,
        prompt,
        preflight: true,
        flushIntervalMs: 5,
        onEvent: (e) => events.push(e),
      });
      expect(result.status, result.error).toBe("completed");
      expect(events.some((e) => e.type === "task")).toBe(true);
      return events;
    };
    await run("one");
    expect(props()).toBe(1);
    // The server restarts with a smaller context (llama-server -c 2048): the next run sees it.
    nCtx = 2_048;
    await run("two");
    expect(props()).toBe(2);
  });

  it("says Ollama's notice once a run, not again for each of its tasks", async () => {
    harness = await openAgentHarness({ agent: { tools: { allow: ["read", "task"], deny: [] } } });
    let request = 0;
    server = await startOpenAICompatibleServer({
      models: ["fixture-model"],
      // Ollama with the model not loaded and no num_ctx in its Modelfile: it says no window.
      routes: { "GET /api/ps": { models: [] }, "POST /api/show": { parameters: "" } },
      replies: () =>
        ++request % 3 === 1
          ? { toolCalls: [{ name: "task", arguments: { description: "look", prompt: "Say hi." } }] }
          : { text: "done" },
    });
    const model = await defaultProviderRegistry().resolve("ollama:fixture-model", {
      providers: { ollama: { baseURL: server.baseURL } },
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      engine: harness.engine,
      agent: harness.agent,
      model,
      prompt: "one",
      preflight: true,
      flushIntervalMs: 5,
      onEvent: (e) => events.push(e),
    });
    expect(result.status, result.error).toBe("completed");
    const notices = (list: readonly RunEvent[]): string[] =>
      list.flatMap((e) => (e.type === "notice" ? [e.message] : []));
    const taskEvents = events.flatMap((e) => (e.type === "task" ? [e.event] : []));
    expect(taskEvents.length).toBeGreaterThan(0);
    expect(notices(events).filter((m) => m.includes("providers.ollama.contextTokens"))).toHaveLength(1);
    expect(notices(taskEvents).filter((m) => m.includes("providers.ollama.contextTokens"))).toHaveLength(0);
    expect(server.paths.filter((p) => p === "GET /api/ps")).toHaveLength(1);
  });
});
