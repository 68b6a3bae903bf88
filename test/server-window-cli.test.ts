import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import type { ChatRequest, FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { useCliWorld } from "./support/cli-world.ts";
import type { Run } from "./support/lathe-cli.ts";

// `lathe run` against a local server whose window settings do not give: the run asks the server
// (llama.cpp's /props, Ollama's /api/ps and /api/show) and summarises the conversation before it
// fills; a window set in settings wins; Ollama, which cuts silently, gets a notice when unknown.

const world = useCliWorld("lathe-window-");

const lathe = (args: string[]): Promise<Run> => world.lathe(args);

function asksForSummary(request: ChatRequest): boolean {
  return String(request.messages[0]?.content ?? "").includes("working notes that replace");
}

const long = (name: string, tokens: number): string => `${name} ${"x".repeat(tokens * 4)}`;

/** A server whose answers are long (each named by its prompt), summaries short, with these extra routes. */
async function serve(routes: Record<string, unknown>): Promise<FixtureServer> {
  return world.serve(
    {
      models: ["fixture-model"],
      chunkChars: 4_000,
      routes,
      replies: (request) => {
        if (asksForSummary(request)) return { text: "Goals: LEARNED-WINDOW-SUMMARY." };
        const last = request.messages.at(-1);
        return { text: long(`ANSWER-TO-${String(JSON.stringify(last?.content)).replace(/\W/g, "")}`, 1_500) };
      },
    },
    // Each test names the provider the server stands for (settings below).
    { endpoint: false },
  );
}

async function settings(provider: string, entry: Record<string, unknown>): Promise<void> {
  await writeFile(
    path.join(world.home, "settings.json"),
    JSON.stringify({ providers: { [provider]: entry } }),
  );
}

function sessionOf(run: Run): string {
  const start = run.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as RunEvent)
    .find((e) => e.type === "start");
  if (start?.type !== "start")
    throw new Error(`no start event in ${run.stdout.slice(0, 200)}\n${run.stderr}`);
  return start.sessionId;
}

/** Five runs in one session; what each printed on stderr. */
async function fiveRuns(model: string): Promise<string[]> {
  const first = await lathe(["run", "first", "--model", model, "--json"]);
  expect(first.code, first.stderr).toBe(0);
  const sessionId = sessionOf(first);
  const seen = [first.stderr];
  for (const prompt of ["second", "third", "fourth", "fifth"]) {
    const run = await lathe(["run", prompt, "--resume", sessionId]);
    expect(run.code, run.stderr).toBe(0);
    seen.push(run.stderr);
  }
  return seen;
}

const SUMMARISED = /lathe: summarised the conversation's older part \(it neared the model's context window\)/;
const LLAMA_PROPS = { "GET /props": { default_generation_settings: { n_ctx: 8_000 } } };

describe("lathe run learns the window of a local server that settings do not give", () => {
  it("summarises before llama-server's n_ctx fills, asking /props once a run", async () => {
    const fixture = await serve(LLAMA_PROPS);
    await settings("llamacpp", { baseURL: fixture.baseURL });
    const seen = await fiveRuns("llamacpp:fixture-model");
    expect(seen.some((stderr) => SUMMARISED.test(stderr))).toBe(true);
    expect(fixture.requests.filter(asksForSummary).length).toBeGreaterThan(0);
    const last = fixture.requests.filter((r) => !asksForSummary(r)).at(-1);
    expect(JSON.stringify(last?.messages)).toContain("LEARNED-WINDOW-SUMMARY");
    expect(JSON.stringify(last?.messages)).not.toContain("ANSWER-TO-first");
    expect(fixture.paths.filter((p) => p === "GET /props")).toHaveLength(5);
  });

  it("takes the window settings give over the server's, without asking it", async () => {
    const fixture = await serve(LLAMA_PROPS);
    await settings("llamacpp", { baseURL: fixture.baseURL, contextTokens: 1_000_000 });
    const seen = await fiveRuns("llamacpp:fixture-model");
    expect(seen.some((stderr) => SUMMARISED.test(stderr))).toBe(false);
    expect(fixture.requests.filter(asksForSummary)).toEqual([]);
    expect(fixture.paths).not.toContain("GET /props");
  });

  it("reads the context a loaded Ollama model runs with, and says nothing more", async () => {
    const fixture = await serve({
      "GET /api/ps": { models: [{ name: "fixture-model:latest", context_length: 8_000 }] },
      "POST /api/show": { parameters: "", model_info: { "llama.context_length": 131_072 } },
    });
    await settings("ollama", { baseURL: fixture.baseURL });
    const seen = await fiveRuns("ollama:fixture-model");
    expect(seen.some((stderr) => SUMMARISED.test(stderr))).toBe(true);
    expect(seen.join("")).not.toContain("contextTokens");
  });

  it("tells once a run how to set the window when Ollama does not say it, and not once it is set", async () => {
    const fixture = await serve({
      "GET /api/ps": { models: [] },
      "POST /api/show": { parameters: 'stop "<|eot_id|>"', model_info: { "llama.context_length": 131_072 } },
    });
    await settings("ollama", { baseURL: fixture.baseURL });
    const run = await lathe(["run", "first", "--model", "ollama:fixture-model"]);
    expect(run.code, run.stderr).toBe(0);
    const notices = run.stderr.split("\n").filter((l) => l.includes("providers.ollama.contextTokens"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^lathe: Ollama does not say how much context it gives fixture-model/);
    expect(notices[0]).toContain("cuts a conversation longer than that silently");

    await settings("ollama", { baseURL: fixture.baseURL, contextTokens: 8_192 });
    const set = await lathe(["run", "again", "--model", "ollama:fixture-model"]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).not.toContain("contextTokens");
  });
});
