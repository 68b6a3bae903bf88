import { z } from "zod";
import type { StoredMessage } from "../store/conversation-store.ts";
import { TOOL_SEARCH_ID } from "../tools/locked-tools.ts";

/** What a tool_search answer holds that says which tools it loaded (the rest is not needed here). */
const SearchAnswer = z.object({ tools: z.array(z.object({ id: z.string() })) });

/**
 * The tools tool_search loaded in a conversation: the ids in each of its answers, oldest first,
 * each once. A run that continues a session loads them again, so a tool the model loaded in an
 * earlier turn (its definition is in the conversation, and the model acts on it) is still shown
 * in full, whichever process runs the turn; a rewind past the search forgets it.
 */
export function loadedTools(messages: readonly StoredMessage[]): string[] {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type !== "tool-result" || part.toolName !== TOOL_SEARCH_ID) continue;
      if (part.envelope.type !== "output") continue;
      const answer = SearchAnswer.safeParse(part.envelope.data);
      if (answer.success) for (const tool of answer.data.tools) ids.add(tool.id);
    }
  }
  return [...ids];
}
