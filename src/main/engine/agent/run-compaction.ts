import type { LanguageModel, ModelMessage } from "ai";
import type { ConversationStore } from "../store/conversation-store.ts";
import { CompactionError } from "../errors/compaction-error.ts";
import { errorMessage } from "../errors/error-message.ts";
import { compactConversation } from "./compact-conversation.ts";
import { conversationView, estimateMessageTokens } from "./conversation-view.ts";
import type { OutputOptions } from "./model-messages.ts";
import type { RunEvent, RunUsage } from "./run-events.ts";
import { addUsage } from "./run-usage.ts";

/** The share of the context window a request may reach before the conversation is compacted. */
export const COMPACT_AT_SHARE = 0.8;

interface RunCompactionOptions {
  store: ConversationStore;
  sessionId: string;
  runId: string;
  model: LanguageModel;
  contextTokens: number | undefined;
  maxOutputTokens: number;
  signal: AbortSignal;
  output: OutputOptions;
  /** Write what the run has buffered, so the store holds the whole conversation. */
  flush(): void;
  /** Whether every write so far reached the store (a compaction reads the conversation from it). */
  intact(): boolean;
  emit(event: RunEvent): void;
}

/**
 * A run's compactions of its conversation: before a request that would pass COMPACT_AT_SHARE of
 * a known context window (a failure to compact then is said, and the run goes on as it is), and
 * once after a request the model refused as too long (then a failure fails the run, with why).
 */
export class RunCompaction {
  private o: RunCompactionOptions;
  /** Why compacting failed in this run: it is not tried again. */
  private failed: string | undefined;
  private afterFull = false;
  /** What the summary requests of this run used, failed ones included. */
  private used: RunUsage = {};
  /** Whether the model is sent the store's view (after a compaction, or a loop that goes on). */
  private fromStore = false;

  constructor(options: RunCompactionOptions) {
    this.o = options;
  }

  /** The tokens this run's summary requests used, as the provider reported them. */
  get usage(): RunUsage {
    return this.used;
  }

  /** Why the conversation could not be compacted in this run, if it could not. */
  get failure(): string | undefined {
    return this.failed;
  }

  /** The conversation the next request sends: `initial` until a compaction or a restart reads the store. */
  messages(initial: readonly ModelMessage[]): ModelMessage[] {
    if (!this.fromStore) return [...initial];
    this.o.flush();
    const { store, sessionId } = this.o;
    return conversationView(store.messages(sessionId), store.compactions(sessionId), this.o.output);
  }

  /** The model's window, learned after the run began (from its server). */
  knowWindow(contextTokens: number): void {
    this.o.contextTokens = contextTokens;
  }

  /** From now on the store is what the model is sent (a loop that goes on after its own stop). */
  readFromStore(): void {
    this.fromStore = true;
  }

  /** The size at which a request is near the context window, if the window is known. */
  private limit(): number | undefined {
    const context = this.o.contextTokens;
    return context === undefined ? undefined : Math.floor(context * COMPACT_AT_SHARE);
  }

  /** What the loop watches to stop for a compaction, when one can be made. */
  watch(
    messages: readonly ModelMessage[],
    fixedTokens: number,
  ): { initialTokens: number; limitTokens: number; canStop(): boolean } | undefined {
    const limitTokens = this.limit();
    if (limitTokens === undefined || this.failed !== undefined || !this.o.intact()) return undefined;
    return {
      initialTokens: fixedTokens + estimateMessageTokens(messages),
      limitTokens,
      // A loop stopped to compact goes on from the store: only while the store has it all.
      canStop: () => this.o.intact(),
    };
  }

  /** Compact when the request `messages` would make is near the context window. */
  async ifNearFull(messages: readonly ModelMessage[], fixedTokens: number): Promise<void> {
    const limitTokens = this.limit();
    if (limitTokens === undefined || this.failed !== undefined) return;
    if (fixedTokens + estimateMessageTokens(messages) < limitTokens) return;
    const why = await this.compact("context-near-full", fixedTokens);
    if (why !== undefined) {
      this.o.emit({
        type: "notice",
        message: `The conversation is near the model's context window, but Lathe could not summarise its older part: ${why}. The run goes on as it is; it fails if the model refuses the conversation as too long.`,
      });
    }
  }

  /**
   * After a request refused as too long: compact, once a run. Undefined when the run can send
   * the compacted conversation; else why not, for the run's error.
   */
  async afterContextFull(fixedTokens: number): Promise<string | undefined> {
    if (this.failed !== undefined) return this.failed;
    if (this.afterFull) {
      this.failed = "it was summarised once in this run already, and still does not fit";
      return this.failed;
    }
    this.afterFull = true;
    return this.compact("context-full", fixedTokens);
  }

  /** Compact now; undefined once done, else why not. An abort rethrows. */
  private async compact(
    reason: "context-near-full" | "context-full",
    fixedTokens: number,
  ): Promise<string | undefined> {
    if (!this.o.intact()) {
      this.failed =
        "the session could not be saved, so its whole conversation is not in the store to summarise";
      return this.failed;
    }
    this.o.flush();
    let used: RunUsage = {};
    try {
      const done = await compactConversation({
        store: this.o.store,
        sessionId: this.o.sessionId,
        runId: this.o.runId,
        model: this.o.model,
        contextTokens: this.o.contextTokens,
        fixedTokens,
        maxOutputTokens: this.o.maxOutputTokens,
        signal: this.o.signal,
        output: this.o.output,
        onUsage: (usage) => {
          used = addUsage(used, usage);
          this.used = addUsage(this.used, usage);
        },
      });
      this.fromStore = true;
      this.o.emit({
        type: "compaction",
        reason,
        messages: done.messages,
        tokensBefore: done.tokensBefore,
        tokensAfter: done.tokensAfter,
        summary: done.compaction.summary,
        ...(Object.keys(used).length > 0 ? { usage: used } : {}),
      });
      return undefined;
    } catch (err) {
      if (this.o.signal.aborted) throw err;
      this.failed = CompactionError.isInstance(err) ? err.message : errorMessage(err);
      return this.failed;
    }
  }
}
