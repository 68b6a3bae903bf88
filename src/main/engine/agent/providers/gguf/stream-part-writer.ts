import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";

/**
 * Writes LanguageModelV4 stream parts for one model call: opens a text or reasoning block on
 * its first delta and closes it when the other kind starts, a tool call begins, or the call ends.
 */
export class StreamPartWriter {
  private readonly emit: (part: LanguageModelV4StreamPart) => void;
  private open: { kind: "text" | "reasoning"; id: string } | undefined;
  private blocks = 0;
  /** All answer text written so far. */
  text = "";

  constructor(emit: (part: LanguageModelV4StreamPart) => void) {
    this.emit = emit;
  }

  private delta(kind: "text" | "reasoning", delta: string): void {
    if (delta === "") return;
    if (this.open?.kind !== kind) {
      this.close();
      this.open = { kind, id: String(this.blocks++) };
      this.emit({ type: `${kind}-start`, id: this.open.id });
    }
    this.emit({ type: `${kind}-delta`, id: this.open.id, delta });
  }

  textDelta(delta: string): void {
    this.text += delta;
    this.delta("text", delta);
  }

  reasoningDelta(delta: string): void {
    this.delta("reasoning", delta);
  }

  /** Ends the open text or reasoning block, if any. */
  close(): void {
    if (!this.open) return;
    this.emit({ type: `${this.open.kind}-end`, id: this.open.id });
    this.open = undefined;
  }

  part(part: LanguageModelV4StreamPart): void {
    this.close();
    this.emit(part);
  }
}
