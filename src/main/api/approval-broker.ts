import { randomUUID } from "node:crypto";
import type { ApprovalAnswer } from "../../shared/api-contract.ts";
import type {
  ApprovalRequest as ApprovalPrompt,
  ApprovalSettled,
  PushFrame,
} from "../../shared/push-events.ts";
import type { ApprovalRequest, Approver } from "../engine/index.ts";
import { PromptQueue } from "./prompt-queue.ts";

/**
 * The approver of one window or WebSocket connection: it forwards each request the engine asks
 * about to that UI as an `approval.requested` push and waits for the person's answer, one prompt
 * at a time. It never invents an "allow": an aborted call resolves the prompt to "reject", and a
 * closed UI or a push that cannot be sent to "unanswered" (refused too, saying why). Each prompt gets its own random id, so an answer can only
 * ever settle the prompt the person saw.
 */
export class ApprovalBroker {
  private readonly prompts: PromptQueue<ApprovalPrompt, ApprovalAnswer>;

  private readonly runSessionId: string | undefined;

  /**
   * `runSessionId`: the chat session whose runs ask here (every UI showing it shows the prompts);
   * none for the prompts of one UI's own calls.
   */
  constructor(send: (frame: PushFrame) => void, runSessionId?: string) {
    this.runSessionId = runSessionId;
    this.prompts = new PromptQueue({
      fallback: "reject",
      noun: "approval prompt",
      describe: (prompt) => `the approval prompt for ${prompt.toolId}`,
      show: (prompt) => send({ event: "approval.requested", payload: prompt }),
      settled: (prompt, answer, cause) =>
        send({
          event: "approval.settled",
          payload: { id: prompt.id, answer, cause: cause as ApprovalSettled["cause"] },
        }),
    });
  }

  /**
   * Give this to `engine.openSession({approver})`. A prompt the UI went away from (closed, or it
   * could not be shown) is "unanswered", not "reject": no one said no.
   */
  readonly approver: Approver = async (request: ApprovalRequest, signal?: AbortSignal) => {
    const { reply, cause } = await this.prompts.askWithCause(
      {
        // The engine's id names the (session, key) pair; two calls can share it. Ours cannot.
        id: `approval-${randomUUID()}`,
        sessionId: request.sessionId,
        ...(this.runSessionId !== undefined ? { runSessionId: this.runSessionId } : {}),
        toolId: request.toolId,
        ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
        origin: request.origin,
        args: request.args,
        approvalKey: request.approvalKey,
        reasons: [...request.reasons],
      },
      signal,
    );
    return cause === "closed" ? "unanswered" : reply;
  };

  /** How many prompts wait, the one on screen included. */
  get pendingCount(): number {
    return this.prompts.pendingCount;
  }

  /** The prompt on screen now, if any. */
  get shown(): ApprovalPrompt | undefined {
    return this.prompts.shown;
  }

  /** Settle the prompt on screen with the person's answer. */
  respond(id: string, answer: ApprovalAnswer): { id: string; answer: ApprovalAnswer } {
    this.prompts.answer(id, answer);
    return { id, answer };
  }

  /** The UI went away: reject every waiting prompt, and every prompt from now on. */
  close(): void {
    this.prompts.close();
  }
}
