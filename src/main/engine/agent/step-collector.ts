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

  add(event: RunEvent): void {
    switch (event.type) {
      case "text":
      case "reasoning": {
        const last = this.parts.at(-1);
        if (last && last.type === event.type) last.text += event.text;
        else this.parts.push({ type: event.type, text: event.text });
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
   * The step's messages, then start afresh. `missing` is the error a call without a result gets
   * (the run stopped before it finished). `cutShort`: the step never finished (the connection
   * dropped, the model failed, the run was stopped), so the text it was streaming is marked as
   * cut off rather than kept as a finished answer.
   */
  take(missing: string, cutShort = false): StepMessage[] {
    const out: StepMessage[] = [];
    const last = this.parts.at(-1);
    if (cutShort && last && (last.type === "text" || last.type === "reasoning")) last.cutOff = true;
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
