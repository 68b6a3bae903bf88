import type { RunEvent } from "./run-events.ts";

const WHY: Record<Extract<RunEvent, { type: "compaction" }>["reason"], string> = {
  "context-near-full": "it neared the model's context window",
  "context-full": "the model refused it as too long",
  manual: "as asked",
};

/**
 * One line that says what a compaction did: how many messages, about how many tokens a request
 * before and after, and the tokens the summary itself took (when the provider said).
 */
export function compactionLine(event: Extract<RunEvent, { type: "compaction" }>): string {
  const plural = event.messages === 1 ? "" : "s";
  const used = event.usage?.totalTokens;
  return `summarised the conversation's older part (${WHY[event.reason]}): ${event.messages} message${plural} now sent as a summary, about ${event.tokensBefore} → ${event.tokensAfter} tokens a request${used !== undefined ? `; the summary took ${used} tokens` : ""}`;
}
