import type { StoredCompaction, StoredMessage } from "../store/conversation-store.ts";
import { estimateMessageTokens } from "./conversation-view.ts";
import { toModelMessages } from "./model-messages.ts";

/** Which messages a compaction replaces with a summary and which it keeps verbatim. */
export interface CompactionPlan {
  /** The summary the new one takes in (it covers the messages before `replaced`). */
  previous: StoredCompaction | undefined;
  /** The messages the new summary covers (after the previous summary's), oldest first. */
  replaced: StoredMessage[];
  /** The messages sent verbatim after the summary. */
  kept: StoredMessage[];
  /** The last replaced message's seq. */
  throughSeq: number;
}

/** A stored message's estimated prompt tokens, as the model is sent it. */
export function storedMessageTokens(message: StoredMessage): number {
  return estimateMessageTokens(toModelMessages([message]));
}

/**
 * Choose where to cut: the most recent messages that fit in `keepTokens` stay verbatim, the rest
 * (since the previous summary) are summarised. The kept part never starts with tool results (their
 * calls would be in the summary), and at least one message is summarised; when even the last
 * messages pass `keepTokens`, as few as can be are kept. Undefined when nothing can be summarised
 * (the conversation since the last summary is one prompt, or one step of calls and results).
 */
export function planCompaction(
  messages: readonly StoredMessage[],
  compactions: readonly StoredCompaction[],
  keepTokens: number,
): CompactionPlan | undefined {
  const previous = compactions.at(-1);
  const active = messages.filter((m) => previous === undefined || m.seq > previous.throughSeq);
  const tokens = active.map(storedMessageTokens);
  let start: number | undefined;
  let tail = 0;
  for (let i = active.length - 1; i >= 1; i--) {
    tail += tokens[i] ?? 0;
    if (active[i]?.role === "tool") continue;
    if (tail > keepTokens && start !== undefined) break;
    start = i;
  }
  if (start === undefined) return undefined;
  const replaced = active.slice(0, start);
  const last = replaced.at(-1);
  if (last === undefined) return undefined;
  return { previous, replaced, kept: active.slice(start), throughSeq: last.seq };
}
