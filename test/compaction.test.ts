import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { conversationView } from "../src/main/engine/agent/conversation-view.ts";
import { eventsOf, openAgentHarness, type AgentHarness } from "./support/agent-harness.ts";
import { SUMMARY_INSTRUCTIONS } from "../src/main/engine/agent/summarize-conversation.ts";
import { scriptedModel, type ScriptedStep } from "./support/scripted-model.ts";

// A conversation that outgrows the model's context is summarised (its older part) and goes on;
// the store keeps every message, and a rewind to before the compaction sends the originals again.

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function open(): Promise<AgentHarness> {
  // Two tools only: the definitions take little of the small context these tests give the model.
  harness = await openAgentHarness({ agent: { tools: { allow: ["read", "write"], deny: [] } } });
  return harness;
}

/** Everything a request sends, as one text. */
function sent(call: LanguageModelV4CallOptions): string {
  return JSON.stringify(call.prompt);
}

/** Whether a request is Lathe's request for a summary (by its instructions). */
function asksForSummary(call: LanguageModelV4CallOptions): boolean {
  return sent(call).includes(SUMMARY_INSTRUCTIONS.slice(0, 60));
}

/**
 * A model that answers summary requests with `summary` (each one, however many pieces the
 * transcript takes) and the others by `turns`, in order; what each request sent is kept.
 */
function routed(
  summary: (call: LanguageModelV4CallOptions) => ScriptedStep,
  turns: Array<(call: LanguageModelV4CallOptions) => ScriptedStep>,
): { model: ReturnType<typeof scriptedModel>; summaries: string[]; requests: string[] } {
  const summaries: string[] = [];
  const requests: string[] = [];
  let turn = 0;
  const step = (call: LanguageModelV4CallOptions): ScriptedStep => {
    if (asksForSummary(call)) {
      summaries.push(sent(call));
      return summary(call);
    }
    requests.push(sent(call));
    const next = turns[turn++];
    if (next === undefined) throw new Error(`unexpected request ${turn}`);
    return next(call);
  };
  return { model: scriptedModel(Array.from({ length: 20 }, () => step)), summaries, requests };
}

/** An answer of about `tokens` tokens (four characters a token) that names itself. */
const long = (name: string, tokens: number): string => `${name} ${"x".repeat(tokens * 4)}`;

const CONTEXT = 4_000;

/** Three turns of about 1000 tokens each: the fourth prompt passes 80% of CONTEXT. */
async function threeLongTurns(h: AgentHarness): Promise<string> {
  const first = await h.run("First task", scriptedModel([{ text: long("ANSWER-ONE", 1000) }]), {
    contextTokens: CONTEXT,
  });
  const sessionId = first.result.sessionId;
  for (const [prompt, name] of [
    ["Second task", "ANSWER-TWO"],
    ["Third task", "ANSWER-THREE"],
  ] as const) {
    const run = await h.run(prompt, scriptedModel([{ text: long(name, 1000) }]), {
      sessionId,
      contextTokens: CONTEXT,
    });
    expect(eventsOf(run.events, "compaction")).toEqual([]);
  }
  return sessionId;
}

const CONTEXT_FULL = (): APICallError =>
  new APICallError({
    message: "Bad Request",
    url: "http://127.0.0.1:8080/v1/chat/completions",
    requestBodyValues: {},
    statusCode: 400,
    responseBody: '{"error":{"code":"context_length_exceeded","message":"too many tokens"}}',
    isRetryable: false,
  });

describe("compaction of a conversation that nears the model's context", () => {
  it("summarises the older turns before the request, sends the summary and the recent turns, and goes on", async () => {
    const h = await open();
    const sessionId = await threeLongTurns(h);
    const m = routed(() => ({ text: "Goals: SUMMARY-OF-ONE-AND-TWO." }), [() => ({ text: "Fourth done." })]);
    const { result, events } = await h.run("Fourth task", m.model, {
      sessionId,
      contextTokens: CONTEXT,
    });
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Fourth done.");
    expect(m.summaries).toHaveLength(1);
    const [summaryRequest] = m.summaries;
    const [next] = m.requests;
    // The summary request holds the older messages, not the ones kept verbatim.
    expect(summaryRequest).toContain("ANSWER-ONE");
    expect(summaryRequest).toContain("ANSWER-TWO");
    expect(summaryRequest).not.toContain("ANSWER-THREE");
    // The next request holds the summary and the recent turns, not the old ones.
    expect(next).toContain("SUMMARY-OF-ONE-AND-TWO");
    expect(next).toContain("ANSWER-THREE");
    expect(next).toContain("Fourth task");
    expect(next).not.toContain("ANSWER-ONE");
    expect(next).not.toContain("ANSWER-TWO");
    const [compaction] = eventsOf(events, "compaction");
    expect(compaction).toMatchObject({
      reason: "context-near-full",
      messages: 4,
      summary: "Goals: SUMMARY-OF-ONE-AND-TWO.",
    });
    expect(compaction?.tokensAfter).toBeLessThan(compaction?.tokensBefore ?? 0);
    // Nothing is lost: every message stays in the store.
    const store = h.engine.conversations();
    const texts = JSON.stringify(store.messages(sessionId));
    for (const name of ["ANSWER-ONE", "ANSWER-TWO", "ANSWER-THREE", "Fourth done."])
      expect(texts).toContain(name);
    expect(store.compactions(sessionId)).toHaveLength(1);
  });

  it("goes on as it is, saying why, when the summary it makes near the context fails", async () => {
    const h = await open();
    const sessionId = await threeLongTurns(h);
    const m = routed((): ScriptedStep => {
      throw new Error("summariser down");
    }, [() => ({ text: "Fourth done." })]);
    const { result, events } = await h.run("Fourth task", m.model, { sessionId, contextTokens: CONTEXT });
    expect(result.status).toBe("completed");
    expect(eventsOf(events, "notice").map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /near the model's context window, but Lathe could not summarise .*summariser down/,
      ),
    );
    expect(m.requests[0]).toContain("ANSWER-ONE");
    expect(h.engine.conversations().compactions(sessionId)).toEqual([]);
  });

  it("resumes a compacted session with its summary, and a rewind to before the compaction sends the originals", async () => {
    const h = await open();
    const sessionId = await threeLongTurns(h);
    const fourth = await h.run(
      "Fourth task",
      routed(() => ({ text: "SUMMARY-MARK" }), [() => ({ text: "Fourth done." })]).model,
      { sessionId, contextTokens: CONTEXT },
    );
    expect(eventsOf(fourth.events, "compaction")).toHaveLength(1);
    // Resumed by a new process: the summary, not the old turns (and no new compaction: it fits).
    const reopened = await h.reopen();
    let resumed = "";
    const again = await h.run(
      "Fifth task",
      scriptedModel([
        (call) => {
          resumed = sent(call);
          return { text: "Fifth done." };
        },
      ]),
      { sessionId, contextTokens: 1_000_000 },
    );
    expect(again.result.status).toBe("completed");
    expect(resumed).toContain("SUMMARY-MARK");
    expect(resumed).not.toContain("ANSWER-ONE");
    expect(resumed).toContain("Fifth task");

    // A rewind to before the prompt whose run compacted brings the originals back.
    const store = reopened.conversations();
    const prompt = store.prompts(sessionId).find((p) => p.text === "Fourth task");
    expect(prompt).toBeDefined();
    const rewound = await reopened.checkpoints.rewind(sessionId, { message: prompt?.seq ?? -1 });
    expect(rewound).toBeDefined();
    expect(store.compactions(sessionId)).toEqual([]);
    const view = JSON.stringify(conversationView(store.messages(sessionId), store.compactions(sessionId)));
    expect(view).toContain("ANSWER-ONE");
    expect(view).not.toContain("SUMMARY-MARK");
  });
});

describe("compaction in the middle of a run", () => {
  it("stops between steps near the context, summarises the run's earlier steps, keeps the request verbatim, and goes on", async () => {
    const h = await open();
    for (const name of ["ONE", "TWO", "THREE"])
      await h.put(`${name}.txt`, `FILE-${name} ${"y".repeat(6_000)}`);
    const read = (name: string) => (): ScriptedStep => ({
      toolCalls: [{ name: "read", input: { path: `${name}.txt` } }],
    });
    const m = routed(
      () => ({ text: "Read ONE.txt: SUMMARY-OF-STEPS." }),
      [read("ONE"), read("TWO"), read("THREE"), () => ({ text: "All three read." })],
    );
    const { result, events } = await h.run("Read ONE.txt, TWO.txt and THREE.txt in turn", m.model, {
      contextTokens: CONTEXT,
    });
    expect(result.status).toBe("completed");
    expect(result.text).toBe("All three read.");
    expect(eventsOf(events, "compaction").map((e) => e.reason)).toContain("context-near-full");
    expect(m.summaries[0]).toContain("FILE-ONE");
    const after = m.requests.at(-1) ?? "";
    expect(after).toContain("SUMMARY-OF-STEPS");
    // The request being worked on is sent word for word, and the latest result verbatim.
    expect(after).toContain("Read ONE.txt, TWO.txt and THREE.txt in turn");
    expect(after).toContain("FILE-THREE");
    expect(after).not.toContain("FILE-ONE");
    // Step numbers go on across the compaction.
    expect(eventsOf(events, "step-start").map((e) => e.step)).toEqual([0, 1, 2, 3]);
    expect(h.engine.conversations().messages(result.sessionId).length).toBeGreaterThanOrEqual(8);
  });
});

describe("compaction in a run that is not saved (persist: false)", () => {
  it("summarises its earlier steps near the context as a saved run does, and leaves nothing in the store", async () => {
    const h = await open();
    for (const name of ["ONE", "TWO", "THREE"])
      await h.put(`${name}.txt`, `FILE-${name} ${"y".repeat(6_000)}`);
    const read = (name: string) => (): ScriptedStep => ({
      toolCalls: [{ name: "read", input: { path: `${name}.txt` } }],
    });
    const m = routed(
      () => ({ text: "Read ONE.txt: EPHEMERAL-SUMMARY." }),
      [read("ONE"), read("TWO"), read("THREE"), () => ({ text: "All three read." })],
    );
    const { result, events } = await h.run("Read ONE.txt, TWO.txt and THREE.txt in turn", m.model, {
      contextTokens: CONTEXT,
      persist: false,
    });
    expect(result.status).toBe("completed");
    expect(eventsOf(events, "compaction").map((e) => e.reason)).toContain("context-near-full");
    const after = m.requests.at(-1) ?? "";
    expect(after).toContain("EPHEMERAL-SUMMARY");
    expect(after).toContain("Read ONE.txt, TWO.txt and THREE.txt in turn");
    expect(after).toContain("FILE-THREE");
    expect(after).not.toContain("FILE-ONE");
    expect(h.engine.conversations().get(result.sessionId)).toBeUndefined();
    expect(h.engine.conversations().messages(result.sessionId)).toEqual([]);
  });
});

describe("compaction after the model refuses the conversation as too long", () => {
  it("compacts once and retries the request", async () => {
    const h = await open();
    const sessionId = await threeLongTurns(h);
    const m = routed(
      () => ({ text: "SUMMARY-AFTER-REFUSAL" }),
      [
        () => {
          throw CONTEXT_FULL();
        },
        () => ({ text: "Fourth done." }),
      ],
    );
    const { result, events } = await h.run(
      "Fourth task",
      m.model,
      // The window is not known: only the refusal says the conversation is too long.
      { sessionId, contextTokens: undefined },
    );
    expect(result.status).toBe("completed");
    expect(result.contextFull).toBeUndefined();
    expect(eventsOf(events, "compaction")[0]?.reason).toBe("context-full");
    const retried = m.requests[1];
    expect(retried).toContain("SUMMARY-AFTER-REFUSAL");
    expect(retried).not.toContain("ANSWER-ONE");
    expect(m.summaries.join("")).toContain("ANSWER-ONE");
    // Once only: a second refusal fails the run.
    expect(m.requests).toHaveLength(2);
  });

  it.each([
    [
      "the summary request fails",
      (): ScriptedStep => {
        throw new Error("server exploded");
      },
      /the request for a summary failed \(.*server exploded/,
    ],
    [
      "the summary is empty",
      (): ScriptedStep => ({ text: "" }),
      /answered the request for a summary with no text/,
    ],
    [
      "the summary is longer than what it replaces",
      (): ScriptedStep => ({ text: long("HUGE", 5000) }),
      /no shorter than the messages it would replace/,
    ],
  ])(
    "fails with the context-full message and why when %s, recording no compaction",
    async (_name, summary, why) => {
      const h = await open();
      const sessionId = await threeLongTurns(h);
      const { result, events } = await h.run(
        "Fourth task",
        routed(summary, [
          () => {
            throw CONTEXT_FULL();
          },
        ]).model,
        { sessionId, contextTokens: undefined },
      );
      expect(result.status).toBe("failed");
      expect(result.contextFull).toBe(true);
      expect(result.error).toMatch(/^The conversation no longer fits the context of scripted-model/);
      expect(result.error).toMatch(why);
      expect(eventsOf(events, "compaction")).toEqual([]);
      expect(h.engine.conversations().compactions(sessionId)).toEqual([]);
    },
  );

  it("fails as before when the conversation is only its first prompt: nothing older to summarise", async () => {
    const h = await open();
    const { result } = await h.run(
      "Everything at once",
      scriptedModel([
        () => {
          throw CONTEXT_FULL();
        },
      ]),
      { contextTokens: undefined },
    );
    expect(result.status).toBe("failed");
    expect(result.contextFull).toBe(true);
    expect(result.error).toContain("there is nothing older to summarise");
  });

  it("leaves the session as it was when the run is stopped during the summary", async () => {
    const h = await open();
    const sessionId = await threeLongTurns(h);
    const stop = new AbortController();
    const { result } = await h.run(
      "Fourth task",
      routed(() => {
        setTimeout(() => stop.abort(), 20);
        return { hang: true, text: "partial summ" };
      }, [
        () => {
          throw CONTEXT_FULL();
        },
      ]).model,
      { sessionId, contextTokens: undefined, signal: stop.signal },
    );
    expect(result.status).toBe("aborted");
    expect(h.engine.conversations().compactions(sessionId)).toEqual([]);
  });
});
