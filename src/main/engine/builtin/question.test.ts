import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../engine.ts";
import {
  answerProblems,
  type Asker,
  type QuestionReply,
  type QuestionRequest,
} from "../tools/question-request.ts";
import {
  DISMISSED_QUESTION_ERROR,
  HEADLESS_QUESTION_ERROR,
  questionTool,
  type QuestionData,
} from "./question.ts";
import { errorOf, outputOf } from "../../../../test/support/envelope-of.ts";

let base: string;
let engine: Engine;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "lathe-question-"));
  await mkdir(path.join(base, "ws"));
  engine = await Engine.create({ root: path.join(base, "ws"), latheHome: path.join(base, "home") });
  engine.registry.unregister("builtin", (_origin, id) => id === "question");
  engine.registry.register(questionTool(), { layer: "builtin", kind: "builtin" });
});

afterEach(async () => {
  await engine.close();
  await rm(base, { recursive: true, force: true });
});

/** An asker that records every request and answers from a script. */
function scriptedAsker(...replies: QuestionReply[]): Asker & { requests: QuestionRequest[] } {
  const requests: QuestionRequest[] = [];
  const asker = async (request: QuestionRequest): Promise<QuestionReply> => {
    requests.push(request);
    const reply = replies.shift();
    if (reply === undefined) throw new Error("the script ran out of replies");
    return reply;
  };
  return Object.assign(asker, { requests });
}

const database = {
  question: "Which database should the service use?",
  header: "Database",
  options: [
    { label: "Postgres", description: "Relational, already in production" },
    { label: "SQLite", description: "One file, no server" },
  ],
};
const features = {
  question: "Which features should the first release have?",
  options: [{ label: "Search" }, { label: "Export" }, { label: "Sharing" }],
  multi_select: true,
};
const name = { question: "What should the command be called?" };

describe("question", () => {
  it("hands the questions to the session's asker and returns the single-select answer", async () => {
    const asker = scriptedAsker({ answers: [["SQLite"]] });
    // Ask mode: question is host-mediated, never gated behind an approval.
    const session = await engine.openSession({ mode: "ask", asker });
    const envelope = await session.call("question", { questions: [database] });
    expect(outputOf<QuestionData>(envelope)).toEqual({ answers: [["SQLite"]] });
    expect(asker.requests).toHaveLength(1);
    expect(asker.requests[0]).toEqual({
      id: expect.any(String),
      sessionId: session.id,
      questions: [database],
    });
  });

  it("returns one array per question: several labels for multi-select, the text for free text", async () => {
    const asker = scriptedAsker({ answers: [["Postgres"], ["Search", "Sharing"], ["lathe-run"]] });
    const session = await engine.openSession({ asker });
    const envelope = await session.call("question", { questions: [database, features, name] });
    expect(outputOf<QuestionData>(envelope)).toEqual({
      answers: [["Postgres"], ["Search", "Sharing"], ["lathe-run"]],
    });
  });

  it("accepts no choice at all for a multi-select question", async () => {
    const session = await engine.openSession({ asker: scriptedAsker({ answers: [[]] }) });
    expect(outputOf<QuestionData>(await session.call("question", { questions: [features] }))).toEqual({
      answers: [[]],
    });
  });

  it.each([
    {
      name: "a label that was not offered",
      answers: [["MySQL"]],
      problem: /"MySQL" is not among its options/,
    },
    {
      name: "two answers to a single-select question",
      answers: [["Postgres", "SQLite"]],
      problem: /allows one choice, but 2 were given/,
    },
    {
      name: "no answer to a single-select question",
      answers: [[]],
      problem: /allows one choice, but 0 were given/,
    },
    { name: "too few answer arrays", answers: [], problem: /1 question but 0 answer arrays/ },
    {
      name: "too many answer arrays",
      answers: [["Postgres"], ["SQLite"]],
      problem: /1 question but 2 answer arrays/,
    },
    { name: "an answer that is not a list", answers: ["Postgres"], problem: /must be an array of strings/ },
    { name: "a non-string label", answers: [[1]], problem: /must be an array of strings/ },
    { name: "answers that are not a list", answers: "Postgres", problem: /answers must be an array/ },
  ])("refuses $name as the host's fault, not the model's", async ({ answers, problem }) => {
    const errors: unknown[] = [];
    engine.events.on("internal-error", ({ error }) => errors.push(error));
    const asker = scriptedAsker({ answers } as unknown as QuestionReply);
    const session = await engine.openSession({ asker });
    const text = errorOf(await session.call("question", { questions: [database] }));
    expect(text).toMatch(/^question failed: the app returned answers that do not fit the questions/);
    expect(text).toMatch(problem);
    expect(text).toContain("This is a fault in the app, not in the call");
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toMatch(problem);
  });

  it.each([
    {
      name: "a repeated choice in a multi-select answer",
      question: features,
      answers: [["Search", "Search"]],
      problem: /chosen more than once/,
    },
    {
      name: "two texts for a free-text question",
      question: name,
      answers: [["a", "b"]],
      problem: /takes free text: answer with exactly one string/,
    },
    { name: "no text for a free-text question", question: name, answers: [[]], problem: /takes free text/ },
  ])("refuses $name from the host", async ({ question, answers, problem }) => {
    const session = await engine.openSession({ asker: scriptedAsker({ answers }) });
    expect(errorOf(await session.call("question", { questions: [question] }))).toMatch(problem);
  });

  it("lets a host check a submission before it answers", () => {
    expect(answerProblems([database, features, name], [["Postgres"], [], ["x"]])).toEqual([]);
    expect(answerProblems([database], [["Oracle"]])).toEqual([
      'Question 1 ("Which database should the service use?"): "Oracle" is not among its options ("Postgres", "SQLite").',
    ]);
  });

  it("tells the model to carry on when the person dismisses the dialog", async () => {
    const session = await engine.openSession({ asker: scriptedAsker("dismissed") });
    expect(errorOf(await session.call("question", { questions: [database] }))).toBe(DISMISSED_QUESTION_ERROR);
  });

  it("fails with the fixed message in a headless session", async () => {
    const session = await engine.openSession({ mode: "ask" });
    const envelope = await session.call("question", { questions: [database] });
    expect(errorOf(envelope)).toBe(HEADLESS_QUESTION_ERROR);
    expect(HEADLESS_QUESTION_ERROR).toBe(
      "No one can answer questions in this session (headless). Continue with your best judgement and state the assumptions you made.",
    );
  });

  it("stops waiting promptly on abort, and the asker sees the abort", async () => {
    let askerSignal: AbortSignal | undefined;
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    // A dialog that is never answered and ignores the signal: the call must still end.
    const asker: Asker = (_request, signal) => {
      askerSignal = signal;
      asked();
      return new Promise<QuestionReply>(() => {});
    };
    const session = await engine.openSession({ asker });
    const controller = new AbortController();
    const call = session.call("question", { questions: [database] }, { signal: controller.signal });
    await waiting;
    const abortedAt = performance.now();
    controller.abort(new Error("the person pressed stop"));
    const text = errorOf(await call);
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(text).toBe("question was aborted: the person pressed stop.");
    expect(askerSignal?.aborted).toBe(true);
  });

  it.each([
    {
      name: "multi_select without options",
      questions: [{ question: "Which?", multi_select: true }],
      error: /questions\[0\] has multi_select: true but no options/,
    },
    {
      name: "a repeated label",
      questions: [{ question: "Which?", options: [{ label: "A" }, { label: "A" }] }],
      error: /offers the label "A" more than once/,
    },
    { name: "a blank question", questions: [{ question: "  " }], error: /questions\[0\]\.question is blank/ },
    { name: "no questions", questions: [], error: /"questions" must not be empty/ },
    {
      name: "a single option",
      questions: [{ question: "Ok?", options: [{ label: "Yes" }] }],
      error: /must have at least 2 items/,
    },
    {
      name: "an unknown field",
      questions: [{ question: "Ok?", default: "Yes" }],
      error: /unknown property "default"/,
    },
  ])("refuses $name before anyone is asked", async ({ questions, error }) => {
    const asker = scriptedAsker();
    const session = await engine.openSession({ asker });
    expect(errorOf(await session.call("question", { questions }))).toMatch(error);
    expect(asker.requests).toEqual([]);
  });
});
