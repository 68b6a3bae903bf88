import {
  DEFAULT_CONTEXT_TOKENS,
  planDeferral,
  TOOL_SEARCH_ID,
  toolTokens,
  type DeferralOptions,
  type DeferralPlan,
} from "./deferral.ts";
import type { AnyTool } from "./contract.ts";
import { deferredToolsNotice, noticeLimitChars } from "./deferred-notice.ts";
import type { RegisteredTool, ToolRegistry } from "./tool-registry.ts";
import { ToolSearchIndex, type ToolSearchHit } from "./tool-search-index.ts";

export interface ToolExposureOptions extends DeferralOptions {
  /** Which tools this agent may see at all (its manifest's allow/deny); default: every tool. */
  visible?: (id: string) => boolean;
}

/**
 * The share of the model's context one loaded tool's definition may take, and all the loaded
 * ones together. A loaded tool is sent with every request for the rest of the session: one
 * larger than this (a schema listing 10,000 values), or too many, would leave too little room
 * for the conversation, or fill the whole window, and every later turn would fail.
 */
const LOAD_SHARE = 0.25;
const LOADED_SHARE = 0.5;

const count = (n: number): string => n.toLocaleString("en-US");

/** The `search` callback the AI SDK's `toolSearch({ search })` takes. */
type SdkToolSearch = (options: {
  query: string;
  tools: ReadonlyArray<{ name: string; description?: string }>;
}) => string[];

/**
 * What one session's model is shown of the registry. At first it sees the tools that are not
 * deferred with their full definitions, and only the names of the deferred ones
 * (`deferredNotice()`, a system-prompt line). tool_search finds deferred tools and `discover`s
 * them: from the next step on they are shown in full, for the rest of the session.
 *
 * It reads the registry live, so plugins and MCP servers reloaded between turns are accounted
 * for on the next call. It only shapes what the model sees: hosts can call any enabled tool,
 * and every call, discovered or not, goes through the whole policy pipeline.
 */
export class ToolExposure {
  private readonly registry: ToolRegistry;
  private options: ToolExposureOptions;
  private readonly discovered = new Set<string>();
  private index: { key: string; index: ToolSearchIndex } | undefined;

  constructor(registry: ToolRegistry, options: ToolExposureOptions = {}) {
    this.registry = registry;
    this.options = options;
  }

  /** Change the budget or the visibility filter (e.g. once the model is known); discoveries stay. */
  configure(options: ToolExposureOptions): void {
    this.options = { ...this.options, ...options };
  }

  /** The enabled tools this agent may see, sorted by id. */
  private entries(): RegisteredTool[] {
    const visible = this.options.visible;
    return this.registry.all().filter((e) => e.tool.enabled && (!visible || visible(e.tool.id)));
  }

  /** The deferral decision for the current registry (before any discovery). */
  plan(): DeferralPlan {
    return planDeferral(this.entries(), this.options);
  }

  /** Tools shown in full from the start: every one not deferred; tool_search only when something is. */
  initialToolIds(): string[] {
    const { deferred } = this.plan();
    return this.entries()
      .map((e) => e.tool.id)
      .filter((id) => !deferred.has(id) && (id !== TOOL_SEARCH_ID || deferred.size > 0));
  }

  /** Tools still deferred: deferred by config or budget, and not discovered yet. */
  deferredIds(): string[] {
    return [...this.plan().deferred].filter((id) => !this.discovered.has(id)).sort();
  }

  isDeferred(id: string): boolean {
    return this.plan().deferred.has(id) && !this.discovered.has(id);
  }

  /** Tools shown in full now: the initial ones plus every one discovered that is still registered. */
  visibleIds(): string[] {
    const { deferred } = this.plan();
    return this.entries()
      .map((e) => e.tool.id)
      .filter((id) =>
        deferred.has(id) ? this.discovered.has(id) : id !== TOOL_SEARCH_ID || deferred.size > 0,
      );
  }

  /** A registered tool's definition (what tool_search hands the model), or undefined when it is gone. */
  definition(id: string): AnyTool | undefined {
    return this.registry.get(id)?.tool;
  }

  /** The context window the model is assumed to have, in tokens. */
  contextTokens(): number {
    return this.options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  }

  /** The tokens the definitions of the loaded tools take (those still deferred by the plan). */
  private loadedTokens(): number {
    return this.discoveredIds().reduce((sum, id) => {
      const tool = this.definition(id);
      return sum + (tool ? toolTokens(tool) : 0);
    }, 0);
  }

  /**
   * Why a registered tool cannot be loaded now, to follow "… was found but not loaded: ", or
   * undefined when it can: its definition takes more than a quarter of the model's context, or
   * it would take the loaded tools past half of it.
   */
  loadProblem(id: string): string | undefined {
    const tool = this.definition(id);
    if (tool === undefined) return "it is no longer registered";
    const tokens = toolTokens(tool);
    const context = this.contextTokens();
    const one = Math.floor(context * LOAD_SHARE);
    if (tokens > one) {
      return `its definition takes about ${count(tokens)} tokens, more than a quarter of this model's context (${count(one)} of ${count(context)}). Tell the user: its author would have to shorten its schema, or a model with a larger context is needed`;
    }
    const all = Math.floor(context * LOADED_SHARE);
    const loaded = this.loadedTokens();
    if (!this.discovered.has(id) && loaded + tokens > all) {
      return `the tools loaded so far take about ${count(loaded)} tokens of every request, and with its ${count(tokens)} they would take more than half of this model's context (${count(all)} of ${count(context)}). Do without it, or tell the user a model with a larger context is needed`;
    }
    return undefined;
  }

  /**
   * Mark deferred tools as loaded from the next step on; returns those that were not yet. A tool
   * that cannot be loaded (see loadProblem) stays deferred.
   */
  discover(ids: Iterable<string>): string[] {
    const { deferred } = this.plan();
    const added: string[] = [];
    for (const id of ids) {
      if (deferred.has(id) && !this.discovered.has(id) && this.loadProblem(id) === undefined) {
        this.discovered.add(id);
        added.push(id);
      }
    }
    return added;
  }

  /** Tools discovered so far (and still deferred by the plan). */
  discoveredIds(): string[] {
    const { deferred } = this.plan();
    return [...this.discovered].filter((id) => deferred.has(id)).sort();
  }

  /**
   * The system-prompt line naming the tools still deferred (within its share of the budget: past
   * that, counted by server), or undefined when none are.
   */
  deferredNotice(): string | undefined {
    const entries = this.entries();
    const { deferred, budgetTokens } = planDeferral(entries, this.options);
    const still = entries.filter((e) => deferred.has(e.tool.id) && !this.discovered.has(e.tool.id));
    return deferredToolsNotice(
      still.map((e) => ({ id: e.tool.id, origin: e.origin })),
      noticeLimitChars(budgetTokens),
    );
  }

  /**
   * Search the deferred tools (discovered ones included, so asking twice still answers), best
   * first. `among` narrows the candidates further (the AI SDK passes the ones it still defers).
   */
  search(query: string, options: { limit?: number; among?: Iterable<string> } = {}): ToolSearchHit[] {
    const entries = this.entries();
    const { deferred } = planDeferral(entries, this.options);
    const deferredEntries = entries.filter((e) => deferred.has(e.tool.id));
    const key = deferredEntries
      .map((e) => `${e.tool.id}:${e.descriptorHash}:${e.origin.name ?? ""}`)
      .join("\n");
    if (this.index?.key !== key) {
      const searchable = deferredEntries.map(({ tool, origin }) => {
        const { id, description, parameters } = tool;
        return { id, description, parameters, ...(origin.name === undefined ? {} : { origin: origin.name }) };
      });
      this.index = { key, index: new ToolSearchIndex(searchable) };
    }
    return this.index.index.search(query, options);
  }

  /**
   * Lathe's search for the AI SDK's `toolSearch({ search })`: ranks the candidates the SDK
   * offers, keeps the best `maxResults`, and discovers them here too, so they stay loaded in
   * later turns (the SDK's own discovery lasts one generation).
   */
  sdkSearch(maxResults = 5): SdkToolSearch {
    return ({ query, tools }) => {
      const ids = this.search(query, { limit: maxResults, among: tools.map((t) => t.name) }).map((h) => h.id);
      this.discover(ids);
      return ids;
    };
  }
}
