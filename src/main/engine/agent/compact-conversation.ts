import type { LanguageModel } from "ai";
import type { ConversationStore, StoredCompaction } from "../store/conversation-store.ts";
import { CompactionError } from "../errors/compaction-error.ts";
import { errorMessage } from "../errors/error-message.ts";
import { estimateTextTokens } from "../tools/token-estimate.ts";
import { planCompaction, storedMessageTokens } from "./compaction-plan.ts";
import { conversationView, estimateMessageTokens } from "./conversation-view.ts";
import type { OutputOptions } from "./model-messages.ts";
import type { RunUsage } from "./run-events.ts";
import { summarizeConversation } from "./summarize-conversation.ts";

/** The share of the conversation's room in the context the most recent messages may keep verbatim. */
const KEEP_SHARE = 0.4;
/** The share of the context one summary request's transcript may take. */
const CHUNK_SHARE = 0.6;
/** The share of the context a summary may take. */
const SUMMARY_SHARE = 0.15;

export interface CompactOptions {
  store: ConversationStore;
  sessionId: string;
  /** The run that compacts (null: a person asked, between runs). */
  runId: string | null;
  model: LanguageModel;
  /** The model's context window, when known; else the conversation's own size stands for it. */
  contextTokens: number | undefined;
  /** What every request carries besides the conversation: instructions and tool definitions. */
  fixedTokens: number;
  /** The most tokens the summary may take (the agent's budget per step). */
  maxOutputTokens: number;
  signal: AbortSignal;
  output?: OutputOptions;
  /** A person asked for it: the recent share kept verbatim is of the conversation, not of the window. */
  asked?: boolean;
  /** The tokens each summary request used (reported as they come, so a failed compaction's count too). */
  onUsage?(usage: RunUsage): void;
}

export interface CompactionDone {
  compaction: StoredCompaction;
  /** How many messages the new summary stands for (those of earlier summaries not counted). */
  messages: number;
  /** The estimated tokens of a request before and after (instructions and tools included). */
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * Summarise the older part of a stored conversation and record the summary as a compaction: the
 * model is sent it in place of those messages from now on; the messages themselves stay. Throws
 * CompactionError, with nothing recorded, when there is nothing to summarise, the summary request
 * fails or comes back empty, or the summary is no shorter than what it replaces; an abort throws
 * the signal's reason, also with nothing recorded.
 */
export async function compactConversation(options: CompactOptions): Promise<CompactionDone> {
  const { store, sessionId } = options;
  const messages = store.messages(sessionId);
  const compactions = store.compactions(sessionId);
  const tokensBefore =
    options.fixedTokens +
    estimateMessageTokens(conversationView(messages, compactions, options.output ?? {}));
  const budget = options.contextTokens ?? tokensBefore;
  // What the conversation itself has room for: the instructions and tools take their share first.
  // (Asked for by a person, the conversation is far from the window: its own size stands for it.)
  const room = Math.max(0, (options.asked ? Math.min(budget, tokensBefore) : budget) - options.fixedTokens);
  const plan = planCompaction(messages, compactions, Math.floor(room * KEEP_SHARE));
  if (plan === undefined) {
    throw new CompactionError(
      "there is nothing older to summarise: since the last summary the conversation is only its latest prompt or step",
    );
  }
  let summary: string;
  try {
    summary = await summarizeConversation({
      model: options.model,
      previous: plan.previous?.summary,
      messages: plan.replaced,
      chunkTokens: Math.max(512, Math.floor(budget * CHUNK_SHARE)),
      maxOutputTokens: Math.max(256, Math.min(options.maxOutputTokens, Math.floor(budget * SUMMARY_SHARE))),
      signal: options.signal,
      ...(options.onUsage ? { onUsage: options.onUsage } : {}),
    });
  } catch (err) {
    if (options.signal.aborted) throw options.signal.reason ?? err;
    throw new CompactionError(`the request for a summary failed (${errorMessage(err)})`, { cause: err });
  }
  if (options.signal.aborted) throw options.signal.reason;
  if (summary === "") throw new CompactionError("the model answered the request for a summary with no text");
  const replacedTokens =
    plan.replaced.reduce((sum, m) => sum + storedMessageTokens(m), 0) +
    (plan.previous ? estimateTextTokens(plan.previous.summary) : 0);
  const summaryTokens = estimateTextTokens(summary);
  if (summaryTokens >= replacedTokens) {
    throw new CompactionError(
      `the summary (about ${summaryTokens} tokens) was no shorter than the messages it would replace (about ${replacedTokens})`,
    );
  }
  const madeAtSeq = (messages.at(-1)?.seq ?? -1) + 1;
  const draft = { summary, throughSeq: plan.throughSeq };
  const tokensAfter =
    options.fixedTokens +
    estimateMessageTokens(
      conversationView(
        messages,
        [
          ...compactions,
          { ...draft, id: 0, runId: null, madeAtSeq, tokensBefore: 0, tokensAfter: 0, createdAt: 0 },
        ],
        options.output ?? {},
      ),
    );
  const compaction = store.addCompaction(sessionId, {
    runId: options.runId,
    throughSeq: plan.throughSeq,
    madeAtSeq,
    summary,
    tokensBefore,
    tokensAfter,
  });
  return { compaction, messages: plan.replaced.length, tokensBefore, tokensAfter };
}
