import { streamText, type LanguageModel } from "ai";
import { runUsage } from "./run-usage.ts";
import type { RunUsage } from "./run-events.ts";
import type { StoredMessage } from "../store/conversation-store.ts";
import { charsForTokens, estimateTextTokens } from "../tools/token-estimate.ts";

/** What the summary request asks of the model. */
export const SUMMARY_INSTRUCTIONS = `You write the working notes that replace the earlier part of a conversation between a person and a coding agent, because the whole conversation no longer fits the model's context. The agent will go on from your notes and the most recent messages alone, so keep everything it needs and nothing it does not.

Write plain text under these headings, in this order:
Goals and constraints: what the person wants and every requirement, preference or limit they stated, in their terms.
Files and decisions: each file read, created or changed (with its path) and why; decisions made and their reasons.
Done: what has been completed.
Left to do: what remains, in order.
Errors met: errors, failed attempts and how they were resolved (or that they were not).

Be concrete (paths, names, commands, values), be brief, and do not invent anything that is not in the conversation. Write only the notes.`;

/** At most this much of one message goes into the transcript (its middle is left out beyond it). */
const MESSAGE_CHARS = 6_000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/** One stored message as lines a model reads as a transcript. */
function transcriptOf(message: StoredMessage): string {
  const lines: string[] = [];
  for (const part of message.parts) {
    switch (part.type) {
      case "text":
        lines.push(`${message.role === "user" ? "Person" : "Agent"}: ${part.text}`);
        break;
      case "reasoning":
        break;
      case "tool-call":
        lines.push(`Agent called ${part.toolName}: ${JSON.stringify(part.input ?? null)}`);
        break;
      case "tool-result":
        lines.push(`Result of ${part.toolName}: ${JSON.stringify(part.envelope)}`);
        break;
    }
  }
  return clip(lines.join("\n"), MESSAGE_CHARS);
}

/** The transcript in pieces of at most about `chunkTokens` tokens each (a message is never split). */
function chunks(messages: readonly StoredMessage[], chunkTokens: number): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const message of messages) {
    const text = transcriptOf(message);
    if (text === "") continue;
    const tokens = estimateTextTokens(text);
    if (current.length > 0 && size + tokens > chunkTokens) {
      out.push(current.join("\n\n"));
      current = [];
      size = 0;
    }
    current.push(text);
    size += tokens;
  }
  if (current.length > 0) out.push(current.join("\n\n"));
  return out;
}

export interface SummarizeOptions {
  model: LanguageModel;
  /** The summary of what came before `messages`, taken into the new one. */
  previous?: string | undefined;
  messages: readonly StoredMessage[];
  /** How much transcript one request may carry, so the request itself fits the context. */
  chunkTokens: number;
  maxOutputTokens: number;
  signal: AbortSignal;
  /** The tokens each summary request used, as the provider reported them (a failed one's too, when reported). */
  onUsage?(usage: RunUsage): void;
}

/**
 * One summary request, streamed (as every request of a run is: local servers and the stall guard
 * speak streams). Throws the request's error; an answer cut off at the output limit is refused
 * rather than taken as a whole summary.
 */
async function streamedText(options: SummarizeOptions, prompt: string): Promise<string> {
  const result = streamText({
    model: options.model,
    instructions: SUMMARY_INSTRUCTIONS,
    prompt,
    maxOutputTokens: options.maxOutputTokens,
    abortSignal: options.signal,
    maxRetries: 1,
    onError: () => undefined,
  });
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text;
    else if (part.type === "error") throw part.error;
    else if (part.type === "abort") throw options.signal.reason ?? new Error("aborted");
    else if (part.type === "finish") {
      options.onUsage?.(runUsage(part.totalUsage));
      if (part.finishReason === "length")
        throw new Error(`the summary was cut off at the ${options.maxOutputTokens}-token limit`);
    }
  }
  return text;
}

/**
 * Summarise messages with the model: one request per piece of transcript that fits, each taking
 * in the summary so far, so a conversation far larger than the context still comes down to one
 * summary. Throws what the request throws; resolves to "" when the model wrote nothing.
 */
export async function summarizeConversation(options: SummarizeOptions): Promise<string> {
  let summary = options.previous?.trim() ?? "";
  const pieceChars = charsForTokens(Math.max(256, options.chunkTokens));
  for (const piece of chunks(options.messages, options.chunkTokens)) {
    const prompt = [
      ...(summary !== "" ? [`Notes on the conversation before this part:\n${summary}`] : []),
      `The conversation${summary !== "" ? " after that" : ""}:\n${clip(piece, pieceChars)}`,
      "Write the notes for everything above.",
    ].join("\n\n");
    summary = (await streamedText(options, prompt)).trim();
    if (summary === "") return "";
  }
  return summary;
}
