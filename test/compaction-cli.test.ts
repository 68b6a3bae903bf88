import { describe, expect, it } from "vitest";
import type { RunEvent } from "../src/main/engine/agent/run-events.ts";
import type { ChatRequest, FixtureReply, FixtureServer } from "./fixtures/openai-compatible-server.ts";
import { useCliWorld } from "./support/cli-world.ts";
import type { Run } from "./support/lathe-cli.ts";

// `lathe run` against a loopback OpenAI-compatible server whose model has a small context (set in
// settings): the conversation is summarised when it fills, the run goes on, and the CLI says so.

const world = useCliWorld("lathe-compact-");

const MODEL = ["--model", "openai-compatible:fixture-model"];
const lathe = (args: string[]): Promise<Run> => world.lathe(args);

/** Whether a request is Lathe's request for a summary (its system message says what it is for). */
function asksForSummary(request: ChatRequest): boolean {
  return String(request.messages[0]?.content ?? "").includes("working notes that replace");
}

const long = (name: string, tokens: number): string => `${name} ${"x".repeat(tokens * 4)}`;

/** A server whose summaries are `summary` and whose other answers are long, each named by its prompt. */
async function serve(
  contextTokens: number,
  summary: (request: ChatRequest) => FixtureReply,
): Promise<FixtureServer> {
  return world.serve(
    {
      models: ["fixture-model"],
      chunkChars: 4_000,
      replies: (request) => {
        if (asksForSummary(request)) return summary(request);
        const last = request.messages.at(-1);
        return { text: long(`ANSWER-TO-${String(JSON.stringify(last?.content)).replace(/\W/g, "")}`, 1_500) };
      },
    },
    { endpoint: { contextTokens } },
  );
}

function sessionOf(run: Run): string {
  const start = run.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as RunEvent)
    .find((e) => e.type === "start");
  if (start?.type !== "start") throw new Error(`no start event in ${run.stdout.slice(0, 200)}`);
  return start.sessionId;
}

describe("lathe run when the conversation fills the model's context", () => {
  it("counts the tokens of the summary in the run's usage and its last line", async () => {
    // Every answer reports 15 tokens (10 in, 5 out); each summary request 4444 (4321 in, 123 out).
    const fixture = await serve(8_000, () => ({
      text: "Goals: COUNTED-SUMMARY.",
      usage: { prompt_tokens: 4_321, completion_tokens: 123 },
    }));
    const first = await lathe(["run", "first", ...MODEL, "--json"]);
    const sessionId = sessionOf(first);
    for (const prompt of ["second", "third", "fourth", "fifth"]) {
      const summariesBefore = fixture.requests.filter(asksForSummary).length;
      const answersBefore = fixture.requests.length - summariesBefore;
      const run = await lathe(["run", prompt, "--resume", sessionId]);
      expect(run.code, run.stderr).toBe(0);
      const summaries = fixture.requests.filter(asksForSummary).length - summariesBefore;
      if (summaries === 0) continue;
      const answers = fixture.requests.length - summaries - summariesBefore - answersBefore;
      const total = answers * 15 + summaries * 4_444;
      expect(run.stderr).toContain(`; the summary took ${summaries * 4_444} tokens\n`);
      expect(run.stderr).toMatch(new RegExp(`lathe: [^\n]*, ${total} tokens\\. Continue with`));
      return;
    }
    throw new Error("no run summarised the conversation");
  });

  it("summarises the older part, says so in one line, and goes on; the next request sends the summary", async () => {
    // Room for the tool definitions (those shown) and about three long answers.
    const fixture = await serve(8_000, () => ({ text: "Goals: CLI-SUMMARY. Done: first answers." }));
    const first = await lathe(["run", "first", ...MODEL, "--json"]);
    expect(first.code).toBe(0);
    const sessionId = sessionOf(first);
    const seen: string[] = [];
    for (const prompt of ["second", "third", "fourth", "fifth"]) {
      const run = await lathe(["run", prompt, "--resume", sessionId]);
      expect(run.code, run.stderr).toBe(0);
      seen.push(run.stderr);
    }
    const notice =
      /lathe: summarised the conversation's older part \(it neared the model's context window\): (\d+) messages? now sent as a summary, about (\d+) → (\d+) tokens a request; the summary took \d+ tokens\n/;
    const said = seen.map((stderr) => notice.exec(stderr));
    const at = said.findIndex((m) => m !== null);
    expect(at).toBeGreaterThanOrEqual(0);
    const [, messages, before, after] = said[at] ?? [];
    expect(Number(messages)).toBeGreaterThan(0);
    expect(Number(after)).toBeLessThan(Number(before));

    const summaries = fixture.requests.filter(asksForSummary);
    expect(JSON.stringify(summaries[0]?.messages)).toContain("ANSWER-TO-first");
    const last = fixture.requests.filter((r) => !asksForSummary(r)).at(-1);
    const sent = JSON.stringify(last?.messages);
    expect(sent).toContain("CLI-SUMMARY");
    expect(sent).not.toContain("ANSWER-TO-first");
    expect(sent).toContain("fifth");
  });

  it("lathe session compact summarises on request, and a failed summary changes nothing", async () => {
    let fail = true;
    const fixture = await serve(1_000_000, () =>
      fail
        ? { status: 500, body: "summariser down" }
        : { text: "Goals: BY-HAND-SUMMARY.", usage: { prompt_tokens: 700, completion_tokens: 77 } },
    );
    const first = await lathe(["run", "first", ...MODEL, "--json"]);
    const sessionId = sessionOf(first);
    expect((await lathe(["run", "second", "--resume", sessionId])).code).toBe(0);

    const unknown = await lathe(["session", "compact", "s-nosuchsession"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('There is no conversation "s-nosuchsession" to compact.');
    expect(unknown.stderr).not.toContain("resume");

    const refused = await lathe(["session", "compact", sessionId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `could not compact session ${sessionId}: the request for a summary failed`,
    );

    fail = false;
    const done = await lathe(["session", "compact", sessionId]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(
        `^Compacted session ${sessionId}: summarised the conversation's older part \\(as asked\\): \\d+ messages? now sent as a summary, about \\d+ → \\d+ tokens a request; the summary took 777 tokens\\.\n$`,
      ),
    );
    expect((await lathe(["run", "third", "--resume", sessionId])).code).toBe(0);
    const sent = JSON.stringify(fixture.requests.filter((r) => !asksForSummary(r)).at(-1)?.messages);
    expect(sent).toContain("BY-HAND-SUMMARY");
    expect(sent).not.toContain("ANSWER-TO-first");
    // The replay still shows the whole conversation, and the summary where it was made.
    const replay = await lathe(["run", "--resume", sessionId, "--replay"]);
    expect(replay.stdout).toContain("ANSWER-TO-first");
    expect(replay.stderr).toContain("summarised the conversation's older part (as asked)");
  });
});
