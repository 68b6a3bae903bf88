import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultProviderRegistry } from "../src/main/engine/agent/default-providers.ts";
import { forgetServerContextWindows } from "../src/main/engine/agent/models/server-context-window.ts";
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
beforeEach(() => forgetServerContextWindows());
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
    // Learned once in this process, not once a run.
    expect(server.paths.filter((p) => p === "GET /props")).toHaveLength(1);
  });
});
