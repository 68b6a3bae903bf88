import { randomUUID } from "node:crypto";
import type { ApprovalAnswer } from "../../shared/api-contract.ts";
import type {
  ApprovalRequest as ApprovalPrompt,
  ApprovalSettled,
  PushFrame,
} from "../../shared/push-events.ts";
import type { ApprovalRequest, Approver } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";

interface Pending {
  prompt: ApprovalPrompt;
  shown: boolean;
  resolve(answer: ApprovalAnswer): void;
  detach(): void;
}

/**
 * The approver of one window or WebSocket connection: it forwards each request the engine asks
 * about to that UI as an `approval.requested` push and waits for the person's answer. Prompts are
 * shown one at a time, in the order they came; the next is pushed once the one on screen settles.
 *
 * It never invents an "allow": an aborted call, a closed UI, or a push that cannot be sent
 * resolves the prompt to "reject". Each prompt gets its own random id, so an answer can only ever
 * settle the prompt the person saw; an unknown or already settled id is refused.
 */
export class ApprovalBroker {
  private readonly send: (frame: PushFrame) => void;
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(send: (frame: PushFrame) => void) {
    this.send = send;
  }

  /** Give this to `engine.openSession({approver})`. */
  readonly approver: Approver = (request, signal) => this.ask(request, signal);

  /** How many prompts wait, the one on screen included. */
  get pendingCount(): number {
    return this.queue.length;
  }

  /** Settle the prompt on screen with the person's answer. */
  respond(id: string, answer: ApprovalAnswer): { id: string; answer: ApprovalAnswer } {
    const head = this.queue[0];
    if (!head || !head.shown || head.prompt.id !== id) {
      throw new ApiError(
        `There is no approval prompt "${id}" waiting for an answer: it was already answered, its call ended, or it never existed.`,
      );
    }
    this.settle(head, answer, "answered");
    return { id, answer };
  }

  /** The UI went away: reject every waiting prompt, and every prompt from now on. */
  close(): void {
    this.closed = true;
    for (const pending of [...this.queue]) this.settle(pending, "reject", "closed");
  }

  private ask(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
    if (this.closed || signal?.aborted) return Promise.resolve("reject");
    return new Promise<ApprovalAnswer>((resolve) => {
      const pending: Pending = {
        prompt: {
          // The engine's id names the (session, key) pair; two calls can share it. Ours cannot.
          id: `approval-${randomUUID()}`,
          sessionId: request.sessionId,
          toolId: request.toolId,
          origin: request.origin,
          args: request.args,
          approvalKey: request.approvalKey,
          reasons: [...request.reasons],
        },
        shown: false,
        resolve,
        detach: () => undefined,
      };
      if (signal) {
        const onAbort = (): void => this.settle(pending, "reject", "aborted");
        signal.addEventListener("abort", onAbort, { once: true });
        pending.detach = () => signal.removeEventListener("abort", onAbort);
      }
      this.queue.push(pending);
      this.showNext();
    });
  }

  private showNext(): void {
    const head = this.queue[0];
    if (!head || head.shown || this.closed) return;
    head.shown = true;
    try {
      this.send({ event: "approval.requested", payload: head.prompt });
    } catch (error) {
      console.error(
        `lathe: could not show the approval prompt for ${head.prompt.toolId}; rejecting it:`,
        error,
      );
      this.settle(head, "reject", "closed");
    }
  }

  private settle(pending: Pending, answer: ApprovalAnswer, cause: ApprovalSettled["cause"]): void {
    const index = this.queue.indexOf(pending);
    if (index === -1) return;
    this.queue.splice(index, 1);
    pending.detach();
    pending.resolve(answer);
    if (pending.shown) {
      try {
        this.send({ event: "approval.settled", payload: { id: pending.prompt.id, answer, cause } });
      } catch (error) {
        // The UI is gone or broken; the call already has its answer, so only report it.
        console.error("lathe: could not tell the window that an approval settled:", error);
      }
    }
    this.showNext();
  }
}
