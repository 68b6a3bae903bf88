import type { ApprovalAnswer } from "../../shared/api-contract.ts";
import type {
  ApprovalRequest as ApprovalPrompt,
  PushFrame,
  QuestionPrompt,
} from "../../shared/push-events.ts";
import type { Approver, Asker } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import { ApprovalBroker } from "./approval-broker.ts";
import { QuestionBroker } from "./question-broker.ts";

/** One chat session's prompts: its approval queue and its question queue, and the asks in flight. */
interface SessionQueues {
  approvals: ApprovalBroker;
  questions: QuestionBroker;
  /** Asks not settled yet; the queues are dropped when none is left. */
  waiting: number;
}

/** How many settled prompts are remembered, to tell a late second answer what became of its prompt. */
const REMEMBERED = 200;

/**
 * The approval prompts and question dialogs of a host's chat runs, whichever UI started the run:
 * each goes to every UI (each shows those of the session it has open, also one opened later, from
 * the history), any UI may answer it, and its end (answered anywhere, its call or run stopped)
 * goes to every UI too. One approval queue and one question queue per chat session, each showing
 * one prompt at a time, so a run's prompts never wait behind another session's. The first answer
 * settles a prompt; a second is refused, saying it was already answered.
 */
export class SessionPrompts {
  private readonly broadcast: (frame: PushFrame) => void;
  private readonly onChange: () => void;
  private readonly sessions = new Map<string, SessionQueues>();
  /** Prompts settled lately: id → how, for the refusal of a second answer. */
  private readonly settled = new Map<string, string>();

  /**
   * `broadcast` sends a push to every UI of the host (it never throws: one UI's failure is its
   * own); `onChange` hears that a prompt came on screen or ended (the session lists say which
   * sessions wait).
   */
  constructor(broadcast: (frame: PushFrame) => void, onChange: () => void = () => undefined) {
    this.broadcast = broadcast;
    this.onChange = onChange;
  }

  /**
   * The approver and asker of one run in chat session `sessionId` (and of its subagents and
   * background tasks): their prompts end, unanswered, when `signal` aborts (the run is stopped,
   * or the UI that started it goes away) even if the call's own signal did not.
   */
  forRun(sessionId: string, signal: AbortSignal): { approver: Approver; asker: Asker } {
    const within = (own: AbortSignal | undefined): AbortSignal =>
      own ? AbortSignal.any([own, signal]) : signal;
    return {
      approver: (request, own) => this.using(sessionId, (q) => q.approvals.approver(request, within(own))),
      asker: (request, own) => this.using(sessionId, (q) => q.questions.asker(request, within(own))),
    };
  }

  /** The prompts on screen for chat session `sessionId` now (what a UI opening it must show). */
  pending(sessionId: string): { approvals: ApprovalPrompt[]; questions: QuestionPrompt[] } {
    const queues = this.sessions.get(sessionId);
    const approval = queues?.approvals.shown;
    const question = queues?.questions.shown;
    return { approvals: approval ? [approval] : [], questions: question ? [question] : [] };
  }

  /** Whether chat session `sessionId` has a prompt on screen, waiting for the person. */
  waiting(sessionId: string): boolean {
    const queues = this.sessions.get(sessionId);
    return queues?.approvals.shown !== undefined || queues?.questions.shown !== undefined;
  }

  /** Whether `id` names an approval prompt of a chat run (on screen, or settled lately). */
  ownsApproval(id: string): boolean {
    return this.approvalOnScreen(id) !== undefined || this.settled.has(id);
  }

  /** A person's answer to an approval prompt on screen, from any UI. */
  respondApproval(id: string, answer: ApprovalAnswer): { id: string; answer: ApprovalAnswer } {
    const broker = this.approvalOnScreen(id);
    if (!broker) throw this.gone("approval prompt", id);
    return broker.respond(id, answer);
  }

  /** A person's answers to a question dialog on screen, from any UI; refused when they do not fit. */
  answerQuestion(id: string, answers: string[][]): { id: string; outcome: "answered" } {
    const broker = this.questionOnScreen(id);
    if (!broker) throw this.gone("question", id);
    return broker.answer(id, answers);
  }

  /** A person closed a question dialog without answering, in any UI. */
  dismissQuestion(id: string): { id: string; outcome: "dismissed" } {
    const broker = this.questionOnScreen(id);
    if (!broker) throw this.gone("question", id);
    return broker.dismiss(id);
  }

  private async using<T>(sessionId: string, ask: (queues: SessionQueues) => Promise<T>): Promise<T> {
    let queues = this.sessions.get(sessionId);
    if (!queues) {
      const send = (frame: PushFrame): void => this.send(frame);
      queues = {
        approvals: new ApprovalBroker(send, sessionId),
        questions: new QuestionBroker(send, sessionId),
        waiting: 0,
      };
      this.sessions.set(sessionId, queues);
    }
    queues.waiting += 1;
    try {
      return await ask(queues);
    } finally {
      queues.waiting -= 1;
      if (queues.waiting === 0 && this.sessions.get(sessionId) === queues) this.sessions.delete(sessionId);
    }
  }

  private send(frame: PushFrame): void {
    if (frame.event === "approval.settled")
      this.remember(frame.payload.id, describe(frame.payload.cause, frame.payload.answer));
    if (frame.event === "question.settled") this.remember(frame.payload.id, describe(frame.payload.cause));
    this.broadcast(frame);
    this.onChange();
  }

  private remember(id: string, how: string): void {
    this.settled.set(id, how);
    if (this.settled.size > REMEMBERED) this.settled.delete(this.settled.keys().next().value as string);
  }

  private gone(noun: string, id: string): ApiError {
    const how = this.settled.get(id);
    return new ApiError(
      how === undefined
        ? `There is no ${noun} "${id}" waiting for an answer: it was already answered, its call ended, or it never existed.`
        : `The ${noun} "${id}" is over: ${how}. Nothing more to answer.`,
    );
  }

  private approvalOnScreen(id: string): ApprovalBroker | undefined {
    for (const queues of this.sessions.values())
      if (queues.approvals.shown?.id === id) return queues.approvals;
    return undefined;
  }

  private questionOnScreen(id: string): QuestionBroker | undefined {
    for (const queues of this.sessions.values())
      if (queues.questions.shown?.id === id) return queues.questions;
    return undefined;
  }
}

/** How a prompt ended, as a second answer is told. */
function describe(cause: string, answer?: ApprovalAnswer): string {
  switch (cause) {
    case "answered":
      return answer === undefined ? "it was already answered" : `it was already answered ("${answer}")`;
    case "dismissed":
      return "it was already dismissed";
    case "aborted":
      return "its call was stopped";
    default:
      return "the run that asked went away";
  }
}
