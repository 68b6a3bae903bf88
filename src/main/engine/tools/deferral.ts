import type { AnyTool } from "./contract.ts";
import type { RegisteredTool } from "./tool-registry.ts";
import { LOCKED_TOOL_IDS, TOOL_SEARCH_ID } from "./locked-tools.ts";
import { deferredToolsNotice, fullNoticeChars, noticeLimitChars } from "./deferred-notice.ts";
import { estimateToolTokens, estimateTextTokens, tokensForChars } from "./token-estimate.ts";

export { LOCKED_TOOL_IDS, TOOL_SEARCH_ID } from "./locked-tools.ts";

/** The context window assumed when the model's is unknown (a common local-model size). */
export const DEFAULT_CONTEXT_TOKENS = 32_768;
/** The share of the context window tool definitions may take before tools are deferred. */
const DEFAULT_BUDGET_FRACTION = 0.1;

export interface DeferralOptions {
  /** The model's context window in tokens; default DEFAULT_CONTEXT_TOKENS. */
  contextTokens?: number;
  /** The share of it tool definitions may use, in (0, 1]; default 10%. */
  budgetFraction?: number;
}

/** Which tools start deferred, why, and what that saves. */
export interface DeferralPlan {
  /** Every deferred tool id, by config or by budget. */
  readonly deferred: ReadonlySet<string>;
  /** Deferred because the tool asks for it (`defer: true` in tool.yaml or MCP settings). */
  readonly byConfig: readonly string[];
  /** Deferred to bring the definitions under the budget, in the order they were chosen. */
  readonly byBudget: readonly string[];
  readonly budgetTokens: number;
  /** What the model sees first: the full definitions of the rest, plus the deferred-tools notice. */
  readonly initialTokens: number;
  /** What the model would see with nothing deferred. */
  readonly fullTokens: number;
}

const tokensByTool = new WeakMap<AnyTool, number>();

/** The estimated prompt tokens of one tool's definition (memoised per definition). */
export function toolTokens(tool: AnyTool): number {
  let tokens = tokensByTool.get(tool);
  if (tokens === undefined) {
    tokens = estimateToolTokens(tool);
    tokensByTool.set(tool, tokens);
  }
  return tokens;
}

/** The budget in tokens; throws RangeError for an option no caller should pass. */
function deferralBudget(options: DeferralOptions = {}): number {
  const context = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  const fraction = options.budgetFraction ?? DEFAULT_BUDGET_FRACTION;
  if (!Number.isFinite(context) || context <= 0) {
    throw new RangeError(`contextTokens must be a positive number of tokens, got ${context}.`);
  }
  if (!Number.isFinite(fraction) || fraction <= 0 || fraction > 1) {
    throw new RangeError(`budgetFraction must be in (0, 1], got ${fraction}.`);
  }
  return Math.floor(context * fraction);
}

/** Non-built-ins go first (a built-in is part of the agent's core kit), then the largest. */
function deferFirst(a: RegisteredTool, b: RegisteredTool): number {
  const builtin = Number(a.origin.kind === "builtin") - Number(b.origin.kind === "builtin");
  if (builtin !== 0) return builtin;
  const size = toolTokens(b.tool) - toolTokens(a.tool);
  if (size !== 0) return size;
  return a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0;
}

/**
 * Decide which of the enabled tools start deferred. Without tool_search among them (an agent
 * that may not use it) none is: a deferred tool could never be loaded, so every one is shown in
 * full. Otherwise a tool with `defer: true` always is (except tool_search). Then, while the definitions the model would see first exceed the budget, the
 * next tool is deferred: tools that are not built-ins before built-ins, the largest first. The
 * locked built-ins are never deferred for the budget. What the model sees first counts the
 * full definitions left, tool_search's own (present only once something is deferred) and the
 * line naming the deferred tools.
 */
export function planDeferral(
  entries: readonly RegisteredTool[],
  options: DeferralOptions = {},
): DeferralPlan {
  const budgetTokens = deferralBudget(options);
  const enabled = entries.filter((e) => e.tool.enabled);
  const search = enabled.find((e) => e.tool.id === TOOL_SEARCH_ID);
  const searchTokens = search ? toolTokens(search.tool) : 0;
  const others = enabled.filter((e) => e !== search);
  const fullTokens = enabled.reduce((sum, e) => sum + toolTokens(e.tool), 0);

  const deferred = new Set<string>();
  let visibleTokens = others.reduce((sum, e) => sum + toolTokens(e.tool), 0);
  // The notice names every deferred tool while that fits its limit, and stays within it past that.
  const noticeLimit = noticeLimitChars(budgetTokens);
  let idChars = 0;
  const defer = (entry: RegisteredTool): void => {
    idChars += entry.tool.id.length;
    deferred.add(entry.tool.id);
    visibleTokens -= toolTokens(entry.tool);
  };
  const initial = (): number =>
    deferred.size === 0
      ? visibleTokens
      : visibleTokens +
        searchTokens +
        tokensForChars(Math.min(fullNoticeChars(idChars, deferred.size), noticeLimit));

  const byConfig: string[] = [];
  // No way to load a deferred tool: nothing is deferred, whatever it costs.
  if (search === undefined) {
    return { deferred, byConfig: [], byBudget: [], budgetTokens, initialTokens: fullTokens, fullTokens };
  }
  for (const entry of others) {
    if (entry.tool.defer === true) {
      defer(entry);
      byConfig.push(entry.tool.id);
    }
  }
  const byBudget: string[] = [];
  const candidates = others
    .filter((e) => !deferred.has(e.tool.id) && !LOCKED_TOOL_IDS.has(e.tool.id))
    .sort(deferFirst);
  for (const entry of candidates) {
    if (initial() <= budgetTokens) break;
    defer(entry);
    byBudget.push(entry.tool.id);
  }
  const notice = deferredToolsNotice(
    others.filter((e) => deferred.has(e.tool.id)).map((e) => ({ id: e.tool.id, origin: e.origin })),
    noticeLimit,
  );
  const initialTokens =
    notice === undefined ? visibleTokens : visibleTokens + searchTokens + estimateTextTokens(notice);
  return { deferred, byConfig, byBudget, budgetTokens, initialTokens, fullTokens };
}
