import type { NewMessage, StoredPart } from "../store/conversation-store.ts";
import type { Envelope } from "../tools/envelope.ts";
import type { RunEvent } from "./run-events.ts";

type StepMessage = Omit<NewMessage, "runId">;

/**
 * Builds the messages of one model step from the run's events: the assistant message (reasoning,
 * text and tool calls in the order they streamed) and the tool message (one result per call, in
 * call order). Every call gets a result, so the history stays valid even for a step cut short.
 */
export class StepCollector {
  private parts: StoredPart[] = [];
  private calls: Array<{ toolCallId: string; toolName: string }> = [];
  private results = new Map<string, Envelope>();
  private textStep = 0;

  add(event: RunEvent): void {
    switch (event.type) {
      case "text":
      case "reasoning": {
        const last = this.parts.at(-1);
        if (last && last.type === event.type) last.text += event.text;
        else this.parts.push({ type: event.type, text: event.text });
        // The text streamed so far was cut off: it is kept as such, not as a finished answer.
        if (event.cutOff) (this.parts.at(-1) as { cutOff?: true }).cutOff = true;
        this.textStep = event.step;
        break;
      }
      case "tool-call":
        this.parts.push({
          type: "tool-call",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.input,
        });
        this.calls.push({ toolCallId: event.toolCallId, toolName: event.toolName });
        break;
      case "tool-result":
        this.results.set(event.toolCallId, event.envelope);
        break;
      default:
        break;
    }
  }

  get empty(): boolean {
    return this.parts.length === 0;
  }

  /**
   * The text (or reasoning) the step was streaming when it ended, if it ended in one (not after a
   * call): what a step cut short leaves unfinished, to be marked with a `cutOff` event.
   */
  openText(): { type: "text" | "reasoning"; step: number } | undefined {
    const last = this.parts.at(-1);
    if (!last || (last.type !== "text" && last.type !== "reasoning") || last.cutOff) return undefined;
    return { type: last.type, step: this.textStep };
  }

  /**
   * The step's messages, then start afresh. `missing` is the error a call without a result gets
   * (the run stopped before it finished).
   */
  take(missing: string): StepMessage[] {
    const out: StepMessage[] = [];
    if (this.parts.length > 0) out.push({ role: "assistant", parts: this.parts });
    if (this.calls.length > 0) {
      out.push({
        role: "tool",
        parts: this.calls.map(({ toolCallId, toolName }) => ({
          type: "tool-result" as const,
          toolCallId,
          toolName,
          envelope: this.results.get(toolCallId) ?? {
            type: "error",
            error_text: missing,
            metadata: { duration_ms: 0 },
          },
        })),
      });
    }
    this.parts = [];
    this.calls = [];
    this.results = new Map();
    return out;
  }
}
