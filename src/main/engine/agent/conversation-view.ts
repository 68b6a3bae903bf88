import type { ModelMessage } from "ai";
import type { StoredCompaction, StoredMessage } from "../store/conversation-store.ts";
import { estimateTextTokens } from "../tools/token-estimate.ts";
import { toModelMessages, type OutputOptions } from "./model-messages.ts";

/** What the model is told about a summary that stands for the start of the conversation. */
const SUMMARY_HEAD =
  "[Lathe: the earlier part of this conversation was summarised to fit the model's context. The summary:]";
const REQUEST_HEAD = "[Lathe: the person's request that the work below goes on with, as they wrote it:]";

function promptText(message: StoredMessage): string {
  return message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/**
 * The user message that stands for the replaced messages: the summary and, when the messages
 * kept verbatim do not start with a prompt (the current run's own steps were summarised), the
 * latest prompt among those replaced, word for word, so the model still reads what was asked.
 */
export function summaryMessage(
  summary: string,
  replaced: readonly StoredMessage[],
  kept: readonly StoredMessage[],
): ModelMessage {
  const request =
    kept[0]?.role === "user" ? undefined : [...replaced].reverse().find((m) => m.role === "user");
  const text = [SUMMARY_HEAD, summary.trim(), ...(request ? [REQUEST_HEAD, promptText(request)] : [])].join(
    "\n\n",
  );
  return { role: "user", content: [{ type: "text", text }] };
}

/**
 * The conversation as the model is sent it: with no compaction, every stored message; after one,
 * the latest compaction's summary in place of the messages it covers, then the rest verbatim.
 * The store keeps every message either way (rewind, export and the app show them).
 */
export function conversationView(
  messages: readonly StoredMessage[],
  compactions: readonly StoredCompaction[],
  options: OutputOptions = {},
): ModelMessage[] {
  const latest = compactions.at(-1);
  if (latest === undefined) return toModelMessages(messages, options);
  const replaced = messages.filter((m) => m.seq <= latest.throughSeq);
  const kept = messages.filter((m) => m.seq > latest.throughSeq);
  return [summaryMessage(latest.summary, replaced, kept), ...toModelMessages(kept, options)];
}

/** The estimated prompt tokens of model messages (the JSON a provider is sent, near enough). */
export function estimateMessageTokens(messages: readonly ModelMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateTextTokens(JSON.stringify(m)), 0);
}
