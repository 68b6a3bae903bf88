import type { ConversationBatch, ConversationStore, NewMessage } from "../store/conversation-store.ts";
import type { RunEvent } from "./run-events.ts";

type DeltaEvent = { seq: number; event: Extract<RunEvent, { type: "text" | "reasoning" }> };
type BufferedEvent = DeltaEvent | { seq: number; event: RunEvent };

interface ConversationWriterOptions {
  /** How long events may wait in memory before they are written (messages go at the next tick). */
  flushIntervalMs?: number;
  /** Told when a write fails; the run goes on (the model's work is not lost to a full disk). */
  onError?(error: unknown): void;
}

/**
 * Records one session's messages and run events without ever making the token stream wait on
 * the disk: everything is buffered, consecutive text (or reasoning) deltas of a step are merged,
 * and one transaction writes the batch — at the next tick for a completed message (so a crash
 * loses at most the step in flight), on a short timer for events, and on `close`.
 */
export class ConversationWriter {
  private readonly store: ConversationStore;
  private readonly sessionId: string;
  private readonly runId: string;
  private readonly intervalMs: number;
  private readonly onError: ((error: unknown) => void) | undefined;
  private nextMessage: number;
  private nextEvent: number;
  private messages: ConversationBatch["messages"] = [];
  private events: BufferedEvent[] = [];
  /** The buffered text/reasoning event that later deltas of the same kind and step extend. */
  private open: DeltaEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    store: ConversationStore,
    sessionId: string,
    runId: string,
    options: ConversationWriterOptions = {},
  ) {
    this.store = store;
    this.sessionId = sessionId;
    this.runId = runId;
    this.intervalMs = options.flushIntervalMs ?? 100;
    this.onError = options.onError;
    const next = store.nextSeq(sessionId);
    this.nextMessage = next.message;
    this.nextEvent = next.event;
  }

  /** A completed message: written at the next tick. */
  message(message: Omit<NewMessage, "runId">): void {
    if (this.closed) return;
    this.messages.push({ ...message, runId: this.runId, seq: this.nextMessage++ });
    this.immediate ??= setImmediate(() => {
      this.immediate = undefined;
      this.flush();
    });
  }

  event(event: RunEvent): void {
    if (this.closed) return;
    if (event.type === "text" || event.type === "reasoning") {
      const open = this.open;
      if (open && open.event.type === event.type && open.event.step === event.step) {
        open.event.text += event.text;
        if (event.cutOff) open.event.cutOff = true;
        return;
      }
      this.open = { seq: this.nextEvent++, event: { ...event } };
      this.events.push(this.open);
    } else {
      this.open = undefined;
      this.events.push({ seq: this.nextEvent++, event });
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs);
      this.timer.unref();
    }
  }

  /** Write everything buffered, in one transaction. */
  flush(): void {
    if (this.messages.length === 0 && this.events.length === 0) return;
    const batch: ConversationBatch = {
      messages: this.messages,
      events: this.events.map(({ seq, event }) => ({
        seq,
        runId: this.runId,
        type: event.type,
        json: JSON.stringify(event),
      })),
    };
    this.messages = [];
    this.events = [];
    this.open = undefined;
    try {
      this.store.write(this.sessionId, batch);
    } catch (err) {
      this.onError?.(err);
    }
  }

  /** Flush and stop: later messages and events are dropped. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.flush();
    this.closed = true;
  }
}
