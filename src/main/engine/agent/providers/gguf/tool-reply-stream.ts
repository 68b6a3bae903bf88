/** What the reply says so far, as it streams (see `tool-call-grammar.ts` for the reply format). */
export type ToolReplyEvent =
  | { type: "answer-delta"; delta: string }
  | { type: "tool-start"; toolName: string }
  /** Raw JSON text of the call's arguments. */
  | { type: "tool-delta"; delta: string }
  | { type: "tool-end" };

const ANSWER_HEAD = /^\s*\{\s*"answer"\s*:\s*"/;
const TOOL_HEAD = /^\s*\{\s*"tool"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*/;
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Reads a grammar-constrained reply as its tokens arrive, so the answer streams as text and a
 * tool call's arguments stream as they are written. The grammar guarantees the shape; the final
 * word is `parseToolReply` on the whole text.
 */
export class ToolReplyStream {
  private phase: "head" | "answer" | "arguments" | "done" = "head";
  private head = "";
  /** An answer escape sequence still being read (starts with a backslash). */
  private escape = "";
  /** A high surrogate from a `\u` escape, held until its low half arrives. */
  private highSurrogate = "";
  private depth = 0;
  private inString = false;
  private stringEscaped = false;

  push(chunk: string): ToolReplyEvent[] {
    const events: ToolReplyEvent[] = [];
    let rest = chunk;
    if (this.phase === "head") {
      this.head += rest;
      rest = "";
      const answer = ANSWER_HEAD.exec(this.head);
      const tool = answer ? undefined : TOOL_HEAD.exec(this.head);
      if (answer) {
        this.phase = "answer";
        rest = this.head.slice(answer[0].length);
      } else if (tool && this.head.length > tool[0].length) {
        // Wait for the first character of the arguments: the head's trailing space is optional.
        this.phase = "arguments";
        events.push({ type: "tool-start", toolName: JSON.parse(tool[1] as string) as string });
        rest = this.head.slice(tool[0].length);
      }
    }
    if (this.phase === "answer" && rest) {
      const delta = this.readAnswer(rest);
      if (delta) events.push({ type: "answer-delta", delta });
    } else if (this.phase === "arguments" && rest) {
      const { delta, ended } = this.readArguments(rest);
      if (delta) events.push({ type: "tool-delta", delta });
      if (ended) events.push({ type: "tool-end" });
    }
    return events;
  }

  /** Whether a tool call's arguments started but did not finish (the reply was cut short). */
  get toolOpen(): boolean {
    return this.phase === "arguments";
  }

  private readAnswer(text: string): string {
    let out = "";
    for (const char of text) {
      if (this.phase !== "answer") break;
      if (this.escape) {
        this.escape += char;
        const decoded = this.decodeEscape();
        if (decoded !== undefined) {
          this.escape = "";
          out += this.withSurrogates(decoded);
        }
      } else if (char === "\\") {
        this.escape = char;
      } else if (char === '"') {
        this.phase = "done";
      } else {
        out += this.withSurrogates(char);
      }
    }
    return out;
  }

  /** The decoded escape once complete, else undefined. */
  private decodeEscape(): string | undefined {
    const kind = this.escape[1] as string;
    if (kind !== "u") return ESCAPES[kind] ?? kind;
    if (this.escape.length < 6) return undefined;
    return String.fromCharCode(Number.parseInt(this.escape.slice(2, 6), 16));
  }

  private withSurrogates(text: string): string {
    const code = text.charCodeAt(0);
    if (text.length === 1 && code >= 0xd800 && code <= 0xdbff) {
      this.highSurrogate = text;
      return "";
    }
    const out = this.highSurrogate + text;
    this.highSurrogate = "";
    return out;
  }

  private readArguments(text: string): { delta: string; ended: boolean } {
    let index = 0;
    for (; index < text.length; index++) {
      const char = text[index] as string;
      if (this.inString) {
        if (this.stringEscaped) this.stringEscaped = false;
        else if (char === "\\") this.stringEscaped = true;
        else if (char === '"') this.inString = false;
        continue;
      }
      if (char === '"') this.inString = true;
      else if (char === "{" || char === "[") this.depth++;
      else if (char === "}" || char === "]") {
        this.depth--;
        if (this.depth === 0) {
          this.phase = "done";
          return { delta: text.slice(0, index + 1), ended: true };
        }
      }
    }
    return { delta: text, ended: false };
  }
}
