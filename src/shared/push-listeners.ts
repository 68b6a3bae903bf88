import { parsePushFrame, type PushEvent, type PushOf } from "./push-events.ts";

type Listener = (payload: unknown) => void;

/**
 * The renderer side of pushes, shared by both transports: listeners per event, and `deliver`,
 * which validates a raw frame before handing it to them. A frame that breaks the contract is
 * reported and dropped; one failing listener never keeps the others from hearing the push.
 */
export class PushListeners {
  private readonly byEvent = new Map<PushEvent, Set<Listener>>();
  private readonly onProblem: (message: string, error?: unknown) => void;

  constructor(onProblem: (message: string, error?: unknown) => void = defaultProblem) {
    this.onProblem = onProblem;
  }

  add<E extends PushEvent>(event: E, listener: (payload: PushOf<E>) => void): () => void {
    let set = this.byEvent.get(event);
    if (!set) {
      set = new Set();
      this.byEvent.set(event, set);
    }
    // Wrapped, so the same function added twice is two subscriptions, each removed on its own.
    const entry: Listener = (payload) => listener(payload as PushOf<E>);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Validate one frame as it arrived and call the listeners of its event. */
  deliver(raw: unknown): void {
    const parsed = parsePushFrame(raw);
    if (!parsed.ok) {
      this.onProblem(`lathe: dropped a push from the host: ${parsed.error}`);
      return;
    }
    const { event, payload } = parsed.frame;
    for (const listener of [...(this.byEvent.get(event) ?? [])]) {
      try {
        listener(payload);
      } catch (error) {
        this.onProblem(`lathe: a ${event} listener failed`, error);
      }
    }
  }
}

function defaultProblem(message: string, error?: unknown): void {
  if (error === undefined) console.error(message);
  else console.error(message, error);
}
