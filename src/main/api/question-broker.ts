import { randomUUID } from "node:crypto";
import type { PushFrame, QuestionPrompt } from "../../shared/push-events.ts";
import { answerProblems, type Asker, type QuestionReply, type QuestionRequest } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { PromptQueue } from "./prompt-queue.ts";

/**
 * The asker of one window or WebSocket connection: each `question` call becomes a
 * `question.requested` push and waits for the person, one dialog at a time. Answers are checked
 * against the questions before anything is settled (a bad submission is refused and the dialog
 * stays); a stopped call, a closed UI or a push that cannot be sent settles as "dismissed". It
 * never invents an answer.
 */
export class QuestionBroker {
  private readonly prompts: PromptQueue<QuestionPrompt, QuestionReply>;

  private readonly runSessionId: string | undefined;

  /** `runSessionId`: the chat session whose runs ask here (every UI showing it shows the dialogs). */
  constructor(send: (frame: PushFrame) => void, runSessionId?: string) {
    this.runSessionId = runSessionId;
    this.prompts = new PromptQueue({
      fallback: "dismissed",
      noun: "question",
      show: (prompt) => send({ event: "question.requested", payload: prompt }),
      settled: (prompt, _reply, cause) =>
        send({ event: "question.settled", payload: { id: prompt.id, cause } }),
    });
  }

  /** Give this to `runAgent({asker})` (or `engine.openSession({asker})`). */
  readonly asker: Asker = (request: QuestionRequest, signal: AbortSignal) =>
    this.prompts.ask(
      {
        id: `question-${randomUUID()}`,
        sessionId: request.sessionId,
        ...(this.runSessionId !== undefined ? { runSessionId: this.runSessionId } : {}),
        ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
        questions: request.questions.map((q) => ({
          ...q,
          ...(q.options ? { options: q.options.map((o) => ({ ...o })) } : {}),
        })),
      },
      signal,
    );

  /** How many dialogs wait, the one on screen included. */
  get pendingCount(): number {
    return this.prompts.pendingCount;
  }

  /** The dialog on screen now, if any. */
  get shown(): QuestionPrompt | undefined {
    return this.prompts.shown;
  }

  /** The person's answers to the dialog on screen; refused (dialog kept) when they do not fit. */
  answer(id: string, answers: string[][]): { id: string; outcome: "answered" } {
    const problems = answerProblems(this.prompts.onScreen(id).questions, answers);
    if (problems.length > 0) {
      throw new ApiError(`These answers do not fit the questions: ${problems.join(" ")}`);
    }
    this.prompts.answer(id, { answers: answers.map((a) => [...a]) });
    return { id, outcome: "answered" };
  }

  /** The person closed the dialog without answering. */
  dismiss(id: string): { id: string; outcome: "dismissed" } {
    this.prompts.answer(id, "dismissed", "dismissed");
    return { id, outcome: "dismissed" };
  }
}
