import type { LanguageModelUsage } from "ai";
import type { RunUsage } from "./run-events.ts";

/** Two usages added up, field by field (a field neither has stays out). */
export function addUsage(a: RunUsage, b: RunUsage): RunUsage {
  const out: RunUsage = { ...a };
  for (const key of ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens"] as const) {
    const value = b[key];
    if (value !== undefined) out[key] = (out[key] ?? 0) + value;
  }
  return out;
}

/** The usage a provider reported, in a run's terms. */
export function runUsage(usage: LanguageModelUsage | undefined): RunUsage {
  const out: RunUsage = {};
  if (!usage) return out;
  if (usage.inputTokens !== undefined) out.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.outputTokens = usage.outputTokens;
  if (usage.totalTokens !== undefined) out.totalTokens = usage.totalTokens;
  const reasoning = usage.outputTokenDetails?.reasoningTokens;
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}
