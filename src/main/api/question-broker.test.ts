import { describe, expect, it } from "vitest";
import type { PushFrame } from "../../shared/push-events.ts";
import type { Question, QuestionRequest } from "../engine/tools/question-request.ts";
import { ApiError } from "./api-error.ts";
import { QuestionBroker } from "./question-broker.ts";

const colour: Question = {
  question: "Which colour?",
  header: "Colour",
  options: [{ label: "Red", description: "warm" }, { label: "Blue" }],
};
const extras: Question = {
  question: "Which extras?",
  options: [{ label: "Tests" }, { label: "Docs" }, { label: "Bench" }],
  multi_select: true,
};
const name: Question = { question: "What should it be called?" };

function request(questions: Question[], sessionId = "s-1"): QuestionRequest {
  return { id: "engine-id", sessionId, questions };
}

function recordingBroker() {
  const frames: PushFrame[] = [];
  const broker = new QuestionBroker((frame) => frames.push(frame));
  const shown = () => frames.flatMap((f) => (f.event === "question.requested" ? [f.payload] : []));
  const settled = () => frames.flatMap((f) => (f.event === "question.settled" ? [f.payload] : []));
  return { broker, shown, settled };
}

describe("QuestionBroker", () => {
  it("shows every question of a call and resolves with the person's answers", async () => {
    const { broker, shown, settled } = recordingBroker();
    const reply = broker.asker(request([colour, extras, name]), new AbortController().signal);
    expect(shown()).toEqual([
      {
        id: expect.stringMatching(/^question-[0-9a-f-]{36}$/),
        sessionId: "s-1",
        questions: [colour, extras, name],
      },
    ]);
    const id = shown()[0]!.id;
    expect(broker.answer(id, [["Blue"], ["Tests", "Docs"], ["lathe-chat"]])).toEqual({
      id,
      outcome: "answered",
    });
    expect(await reply).toEqual({ answers: [["Blue"], ["Tests", "Docs"], ["lathe-chat"]] });
    expect(settled()).toEqual([{ id, cause: "answered" }]);
    expect(broker.pendingCount).toBe(0);
  });

  it("names the chat's tool call a dialog is for, so its card can say it waits for an answer", async () => {
    const { broker, shown } = recordingBroker();
    const signal = new AbortController().signal;
    const first = broker.asker({ ...request([name]), toolCallId: "call-3" }, signal);
    expect(shown()[0]).toMatchObject({ toolCallId: "call-3" });
    broker.dismiss(shown()[0]!.id);
    await first;
    // A call with no id of the caller's names none.
    void broker.asker(request([name]), signal);
    expect(shown()[1]).not.toHaveProperty("toolCallId");
  });

  it.each([
    { name: "no answer for a question", answers: [["Blue"]], message: /2 questions but 1 answer array/ },
    { name: "a label that is not offered", answers: [["Green"], []], message: /"Green" is not among/ },
    { name: "two choices for a single choice", answers: [["Red", "Blue"], []], message: /allows one choice/ },
    { name: "the same option twice", answers: [["Red"], ["Docs", "Docs"]], message: /more than once/ },
    { name: "no choice for a single choice", answers: [[], ["Docs"]], message: /allows one choice, but 0/ },
  ])("refuses $name and keeps the dialog open", async ({ answers, message }) => {
    const { broker, shown, settled } = recordingBroker();
    const reply = broker.asker(request([colour, extras]), new AbortController().signal);
    const id = shown()[0]!.id;
    expect(() => broker.answer(id, answers)).toThrow(ApiError);
    expect(() => broker.answer(id, answers)).toThrow(message);
    expect(broker.pendingCount).toBe(1);
    expect(settled()).toEqual([]);
    broker.answer(id, [["Red"], []]);
    expect(await reply).toEqual({ answers: [["Red"], []] });
  });

  it("takes free text as exactly one string", async () => {
    const { broker, shown } = recordingBroker();
    const reply = broker.asker(request([name]), new AbortController().signal);
    const id = shown()[0]!.id;
    expect(() => broker.answer(id, [["a", "b"]])).toThrow(/free text: answer with exactly one string/);
    broker.answer(id, [["Lathe"]]);
    expect(await reply).toEqual({ answers: [["Lathe"]] });
  });

  it("dismisses when the person closes the dialog; the id then answers nothing", async () => {
    const { broker, shown, settled } = recordingBroker();
    const reply = broker.asker(request([colour]), new AbortController().signal);
    const id = shown()[0]!.id;
    expect(broker.dismiss(id)).toEqual({ id, outcome: "dismissed" });
    expect(await reply).toBe("dismissed");
    expect(settled()).toEqual([{ id, cause: "dismissed" }]);
    expect(() => broker.answer(id, [["Red"]])).toThrow(/no question .* waiting/);
    expect(() => broker.dismiss("question-made-up")).toThrow(/no question .* waiting/);
  });

  it("shows one dialog at a time, in order; only the one on screen can be answered", async () => {
    const { broker, shown } = recordingBroker();
    const first = broker.asker(request([colour], "s-1"), new AbortController().signal);
    const second = broker.asker(request([name], "s-2"), new AbortController().signal);
    expect(shown().map((q) => q.sessionId)).toEqual(["s-1"]);
    expect(broker.pendingCount).toBe(2);
    broker.answer(shown()[0]!.id, [["Red"]]);
    expect(await first).toEqual({ answers: [["Red"]] });
    expect(shown().map((q) => q.sessionId)).toEqual(["s-1", "s-2"]);
    broker.answer(shown()[1]!.id, [["Ada"]]);
    expect(await second).toEqual({ answers: [["Ada"]] });
  });

  it("dismisses a question whose call is stopped, and the next one shows", async () => {
    const { broker, shown, settled } = recordingBroker();
    const stop = new AbortController();
    const first = broker.asker(request([colour]), stop.signal);
    const second = broker.asker(request([name]), new AbortController().signal);
    stop.abort();
    expect(await first).toBe("dismissed");
    expect(settled()).toEqual([{ id: shown()[0]!.id, cause: "aborted" }]);
    expect(shown()).toHaveLength(2);
    broker.dismiss(shown()[1]!.id);
    expect(await second).toBe("dismissed");
  });

  it("dismisses a dialog it cannot show", async () => {
    const broker = new QuestionBroker(() => {
      throw new Error("the window is gone");
    });
    const original = console.error;
    console.error = () => undefined;
    try {
      expect(await broker.asker(request([colour]), new AbortController().signal)).toBe("dismissed");
    } finally {
      console.error = original;
    }
    expect(broker.pendingCount).toBe(0);
  });
});
