import type { Engine } from "../engine.ts";
import { SessionError } from "../errors/session-error.ts";
import { estimateTextTokens } from "../tools/token-estimate.ts";
import { DEFAULT_BUDGETS, type AgentManifest } from "./agent-manifest.ts";
import { CompactionError } from "../errors/compaction-error.ts";
import { compactConversation } from "./compact-conversation.ts";
import { maskModelSecrets } from "./model-failure.ts";
import type { ResolvedModel } from "./provider-registry.ts";
import type { RunEvent, RunUsage } from "./run-events.ts";
import { addUsage } from "./run-usage.ts";
import { guardResolvedModel } from "./stall-guard.ts";

export interface CompactSessionOptions {
  engine: Engine;
  agent: AgentManifest;
  model: ResolvedModel;
  sessionId: string;
  signal?: AbortSignal;
}

/**
 * Compact a session's conversation now, between runs (`lathe session compact`): the same summary
 * a run makes when the context fills, recorded the same way, with its `compaction` event under
 * the session's latest run (so the app shows it where it happened, and a rewind to before that
 * run drops both). Holds the session as a run does. Throws CompactionError (nothing recorded)
 * when it cannot, SessionError for a session with no conversation or in use.
 */
export async function compactSession(
  options: CompactSessionOptions,
): Promise<Extract<RunEvent, { type: "compaction" }>> {
  const { engine, sessionId } = options;
  const store = engine.conversations();
  if (store.get(sessionId) === undefined)
    throw new SessionError(`Session ${sessionId} has no conversation to compact.`);
  const lease = engine.holdSessionForRun(sessionId, () => undefined);
  try {
    const signal = options.signal ?? new AbortController().signal;
    const model = guardResolvedModel(options.model);
    let usage: RunUsage = {};
    const done = await compactConversation({
      store,
      sessionId,
      runId: null,
      model,
      contextTokens: options.model.contextTokens,
      fixedTokens: estimateTextTokens(options.agent.systemPrompt),
      maxOutputTokens: options.agent.budgets.maxOutputTokens ?? DEFAULT_BUDGETS.maxOutputTokens,
      signal,
      asked: true,
      onUsage: (used) => (usage = addUsage(usage, used)),
    }).catch((err: unknown) => {
      // A failed summary request says what the server answered, which may echo the API key.
      if (!CompactionError.isInstance(err) || err.code !== "compaction") throw err;
      throw new CompactionError(maskModelSecrets(err.message, options.model), { cause: err.cause });
    });
    const event = {
      type: "compaction" as const,
      reason: "manual" as const,
      messages: done.messages,
      tokensBefore: done.tokensBefore,
      tokensAfter: done.tokensAfter,
      summary: done.compaction.summary,
      ...(Object.keys(usage).length > 0 ? { usage } : {}),
    };
    const runId = store.messages(sessionId).at(-1)?.runId;
    if (runId !== undefined) {
      store.write(sessionId, {
        messages: [],
        events: [
          { seq: store.nextSeq(sessionId).event, runId, type: event.type, json: JSON.stringify(event) },
        ],
      });
    }
    return event;
  } finally {
    lease.release();
  }
}
