import { ApiError } from "./api-error.ts";

/** Why a prompt stopped waiting. */
export type PromptCause = "answered" | "dismissed" | "aborted" | "closed";

interface PromptQueueOptions<P, R> {
  /** What a prompt resolves to when no person answers it (aborted call, closed UI, failed push). */
  fallback: R;
  /** Put the prompt on screen; throws when it cannot be sent (it then settles as the fallback). */
  show(prompt: P): void;
  /** Tell the screen a shown prompt settled; a failure here is only reported. */
  settled(prompt: P, reply: R, cause: PromptCause): void;
  /** What to call a prompt in messages, e.g. "approval prompt". */
  noun: string;
  /** Names one prompt in a log line, e.g. "the approval prompt for write". */
  describe?(prompt: P): string;
}

interface Pending<P, R> {
  prompt: P;
  shown: boolean;
  resolve(reply: R, cause: PromptCause): void;
  detach(): void;
}

/**
 * Prompts a person answers in one window or connection, shown one at a time in the order they
 * came; the next is shown once the one on screen settles. It never invents an answer: an
 * aborted call, a closed UI or a prompt that cannot be shown resolves to the fallback, and only
 * the prompt on screen can be answered, by its own id.
 */
export class PromptQueue<P extends { id: string }, R> {
  private readonly options: PromptQueueOptions<P, R>;
  private readonly queue: Pending<P, R>[] = [];
  private closed = false;

  constructor(options: PromptQueueOptions<P, R>) {
    this.options = options;
  }

  /** How many prompts wait, the one on screen included. */
  get pendingCount(): number {
    return this.queue.length;
  }

  /** Queue a prompt and wait for its answer (or the fallback). */
  async ask(prompt: P, signal?: AbortSignal): Promise<R> {
    return (await this.askWithCause(prompt, signal)).reply;
  }

  /** Queue a prompt and wait for its answer (or the fallback), and why it stopped waiting. */
  askWithCause(prompt: P, signal?: AbortSignal): Promise<{ reply: R; cause: PromptCause }> {
    if (this.closed) return Promise.resolve({ reply: this.options.fallback, cause: "closed" });
    if (signal?.aborted) return Promise.resolve({ reply: this.options.fallback, cause: "aborted" });
    return new Promise((resolve) => {
      const pending: Pending<P, R> = {
        prompt,
        shown: false,
        resolve: (reply, cause) => resolve({ reply, cause }),
        detach: () => undefined,
      };
      if (signal) {
        const onAbort = (): void => this.settle(pending, this.options.fallback, "aborted");
        signal.addEventListener("abort", onAbort, { once: true });
        pending.detach = () => signal.removeEventListener("abort", onAbort);
      }
      this.queue.push(pending);
      this.showNext();
    });
  }

  /** The prompt on screen now, if any (the others wait behind it). */
  get shown(): P | undefined {
    const head = this.queue[0];
    return head?.shown ? head.prompt : undefined;
  }

  /** The prompt on screen, if `id` names it; refused otherwise. */
  onScreen(id: string): P {
    const head = this.queue[0];
    if (!head || !head.shown || head.prompt.id !== id) {
      throw new ApiError(
        `There is no ${this.options.noun} "${id}" waiting for an answer: it was already answered, its call ended, or it never existed.`,
      );
    }
    return head.prompt;
  }

  /** Settle the prompt on screen with the person's answer (or their closing it unanswered). */
  answer(id: string, reply: R, cause: "answered" | "dismissed" = "answered"): void {
    this.onScreen(id);
    this.settle(this.queue[0] as Pending<P, R>, reply, cause);
  }

  /** The UI went away: every waiting prompt, and every prompt from now on, gets the fallback. */
  close(): void {
    this.closed = true;
    for (const pending of [...this.queue]) this.settle(pending, this.options.fallback, "closed");
  }

  private showNext(): void {
    const head = this.queue[0];
    if (!head || head.shown || this.closed) return;
    head.shown = true;
    try {
      this.options.show(head.prompt);
    } catch (error) {
      const what = this.options.describe?.(head.prompt) ?? `the ${this.options.noun}`;
      console.error(`lathe: could not show ${what}; it gets no answer:`, error);
      this.settle(head, this.options.fallback, "closed");
    }
  }

  private settle(pending: Pending<P, R>, reply: R, cause: PromptCause): void {
    const index = this.queue.indexOf(pending);
    if (index === -1) return;
    this.queue.splice(index, 1);
    pending.detach();
    pending.resolve(reply, cause);
    if (pending.shown) {
      try {
        this.options.settled(pending.prompt, reply, cause);
      } catch (error) {
        // The UI is gone or broken; the call already has its answer, so only report it.
        console.error(`lathe: could not tell the window that a ${this.options.noun} settled:`, error);
      }
    }
    this.showNext();
  }
}
