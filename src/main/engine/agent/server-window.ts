import type { ResolvedModel } from "./provider-registry.ts";

/** A model with the window its server said (if it said), and what to tell the person once. */
export interface WindowLearned {
  model: ResolvedModel;
  notices: string[];
}

/**
 * Learn the model's context window from its server when nothing else gave it (settings, the
 * provider): the returned model carries it as `contextTokens`, and no longer asks (so a run after
 * `setupAgentRun` does not ask again). A server that does not say leaves the model as it was,
 * without a window: the run goes on as it would have. Never rejects.
 */
export async function withServerWindow(model: ResolvedModel, signal?: AbortSignal): Promise<WindowLearned> {
  if (model.contextTokens !== undefined || model.contextWindow === undefined) return { model, notices: [] };
  const answer = await model.contextWindow(signal).catch(() => ({ tokens: undefined, notice: undefined }));
  const { contextWindow: _asked, ...rest } = model;
  return {
    model: answer.tokens !== undefined ? { ...rest, contextTokens: answer.tokens } : rest,
    notices: answer.notice !== undefined ? [answer.notice] : [],
  };
}
