import { randomUUID } from "node:crypto";
import type { PushFrame, QuestionPrompt, QuestionSettledPayload } from "../../shared/push-events.ts";
import type { Asker, QuestionReply, QuestionRequest } from "../engine/session/question-request.ts";
import { answerProblems } from "../engine/session/question-request.ts";
import { ApiError } from "./api-error.ts";

interface Pending {
  prompt: QuestionPrompt;
  shown: boolean;
  resolve(reply: QuestionReply): void;
  detach(): void;
}

/**
 * The asker of one window or WebSocket connection: each `question` call becomes a
 * `question.requested` push and waits for the person. Dialogs are shown one at a time, in the
 * order they came. Answers are checked against the questions before anything is settled (a bad
 * submission is refused and the dialog stays); a stopped call, a closed UI or a push that cannot
 * be sent settles as "dismissed". It never invents an answer.
 */
export class QuestionBroker {
  private readonly send: (frame: PushFrame) => void;
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(send: (frame: PushFrame) => void) {
    this.send = send;
  }

  /** Give this to `runAgent({asker})` (or `engine.openSession({asker})`). */
  readonly asker: Asker = (request, signal) => this.ask(request, signal);

  /** How many dialogs wait, the one on screen included. */
  get pendingCount(): number {
    return this.queue.length;
  }

  /** The person's answers to the dialog on screen; refused (dialog kept) when they do not fit. */
  answer(id: string, answers: string[][]): { id: string; outcome: "answered" } {
    const head = this.head(id);
    const problems = answerProblems(head.prompt.questions, answers);
    if (problems.length > 0) {
      throw new ApiError(`These answers do not fit the questions: ${problems.join(" ")}`);
    }
    this.settle(head, { answers: answers.map((a) => [...a]) }, "answered");
    return { id, outcome: "answered" };
  }

  /** The person closed the dialog without answering. */
  dismiss(id: string): { id: string; outcome: "dismissed" } {
    this.settle(this.head(id), "dismissed", "dismissed");
    return { id, outcome: "dismissed" };
  }

  /** The UI went away: dismiss every waiting dialog, and every question from now on. */
  close(): void {
    this.closed = true;
    for (const pending of [...this.queue]) this.settle(pending, "dismissed", "closed");
  }

  private head(id: string): Pending {
    const head = this.queue[0];
    if (!head || !head.shown || head.prompt.id !== id) {
      throw new ApiError(
        `There is no question "${id}" waiting for an answer: it was already answered, its call ended, or it never existed.`,
      );
    }
    return head;
  }

  private ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionReply> {
    if (this.closed || signal.aborted) return Promise.resolve("dismissed");
    return new Promise<QuestionReply>((resolve) => {
      const pending: Pending = {
        prompt: {
          id: `question-${randomUUID()}`,
          sessionId: request.sessionId,
          questions: request.questions.map((q) => ({
            ...q,
            ...(q.options ? { options: q.options.map((o) => ({ ...o })) } : {}),
          })),
        },
        shown: false,
        resolve,
        detach: () => undefined,
      };
      const onAbort = (): void => this.settle(pending, "dismissed", "aborted");
      signal.addEventListener("abort", onAbort, { once: true });
      pending.detach = () => signal.removeEventListener("abort", onAbort);
      this.queue.push(pending);
      this.showNext();
    });
  }

  private showNext(): void {
    const head = this.queue[0];
    if (!head || head.shown || this.closed) return;
    head.shown = true;
    try {
      this.send({ event: "question.requested", payload: head.prompt });
    } catch (error) {
      console.error("lathe: could not show the question dialog; dismissing it:", error);
      this.settle(head, "dismissed", "closed");
    }
  }

  private settle(pending: Pending, reply: QuestionReply, cause: QuestionSettledPayload["cause"]): void {
    const index = this.queue.indexOf(pending);
    if (index === -1) return;
    this.queue.splice(index, 1);
    pending.detach();
    pending.resolve(reply);
    if (pending.shown) {
      try {
        this.send({ event: "question.settled", payload: { id: pending.prompt.id, cause } });
      } catch (error) {
        console.error("lathe: could not tell the window that a question settled:", error);
      }
    }
    this.showNext();
  }
}
