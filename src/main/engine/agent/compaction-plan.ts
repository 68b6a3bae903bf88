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
  // Where the kept part may start (never at tool results, whose calls would be summarised).
  const starts: number[] = [];
  for (let i = 1; i < active.length; i++) if (active[i]?.role !== "tool") starts.push(i);
  // The earliest start whose tail fits in keepTokens, else the latest start there is.
  let tail = tokens.reduce((sum, t) => sum + t, 0) - (tokens[0] ?? 0);
  let from = starts.length - 1;
  for (let k = 0, i = 1; k < starts.length; k++) {
    for (; i < (starts[k] ?? 0); i++) tail -= tokens[i] ?? 0;
    if (tail <= keepTokens) {
      from = k;
      break;
    }
  }
  for (let k = Math.max(0, from); k < starts.length; k++) {
    const start = starts[k] as number;
    const replaced = active.slice(0, start);
    const kept = active.slice(start);
    // The request being worked on is sent word for word after the summary when the kept part
    // does not start with it (conversation-view.ts): a summary of that prompt alone gains nothing.
    const resent = kept[0]?.role === "user" ? undefined : replaced.findLast((m) => m.role === "user");
    if (replaced.every((m) => m === resent)) continue;
    return { previous, replaced, kept, throughSeq: (replaced.at(-1) as StoredMessage).seq };
  }
  return undefined;
}
