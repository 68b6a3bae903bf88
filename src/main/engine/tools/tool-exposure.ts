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
/** Tools unloaded for a smaller context named in the notice; the rest are counted. */
const UNLOADED_LISTED = 20;

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
  /** Tools unloaded because the context shrank (fitLoaded), until they are loaded again. */
  private readonly unloaded = new Set<string>();
  private index: { key: string; index: ToolSearchIndex } | undefined;
  /**
   * The entries and plan of one registry revision under one set of options. A tool_search call
   * asks for the plan at every step (search, then per hit loadProblem and discover, which count
   * the loaded tools' tokens): it was planned about 16 times per call, each a pass over every
   * tool. Planned again only when a tool comes or goes or configure() changes the options.
   */
  private planned:
    | {
        revision: number;
        options: ToolExposureOptions;
        entries: readonly RegisteredTool[];
        plan: DeferralPlan;
      }
    | undefined;

  constructor(registry: ToolRegistry, options: ToolExposureOptions = {}) {
    this.registry = registry;
    this.options = options;
  }

  /**
   * Change the budget or the visibility filter (e.g. once the model is known); discoveries stay,
   * as many as the context now holds: with a smaller context (a model that turned out to have
   * less, or a later run's), loaded tools past its limits are unloaded (fitLoaded).
   */
  configure(options: ToolExposureOptions): void {
    this.options = { ...this.options, ...options };
    if (options.contextTokens !== undefined) this.fitLoaded();
  }

  /**
   * Unload the loaded tools the context no longer holds (see loadProblem): each whose definition
   * alone takes more than its share, then the oldest loaded first, until the rest take at most
   * their share together. A tool loaded under a larger context was sent with every request,
   * past the smaller window: every later turn would have failed. The unloaded ones are named to
   * the model (deferredNotice) until tool_search loads them again.
   */
  private fitLoaded(): void {
    const context = this.contextTokens();
    const tokensOf = (id: string): number => {
      const tool = this.definition(id);
      return tool ? toolTokens(tool) : 0;
    };
    const unload = (id: string): void => {
      this.discovered.delete(id);
      this.unloaded.add(id);
    };
    const loaded = this.discoveredIds();
    for (const id of loaded) if (tokensOf(id) > Math.floor(context * LOAD_SHARE)) unload(id);
    // Oldest first: the set keeps the order tools were loaded in.
    for (const id of [...this.discovered]) {
      if (this.loadedTokens() <= Math.floor(context * LOADED_SHARE)) break;
      if (loaded.includes(id)) unload(id);
    }
  }

  /** The enabled tools this agent may see, sorted by id, and their deferral plan. */
  private current(): { entries: readonly RegisteredTool[]; plan: DeferralPlan } {
    const revision = this.registry.revision;
    const options = this.options;
    if (this.planned?.revision !== revision || this.planned.options !== options) {
      const visible = options.visible;
      const entries = this.registry.all().filter((e) => e.tool.enabled && (!visible || visible(e.tool.id)));
      this.planned = { revision, options, entries, plan: planDeferral(entries, options) };
    }
    return this.planned;
  }

  /** The enabled tools this agent may see, sorted by id. */
  private entries(): readonly RegisteredTool[] {
    return this.current().entries;
  }

  /** The deferral decision for the current registry (before any discovery). */
  plan(): DeferralPlan {
    return this.current().plan;
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
        this.unloaded.delete(id);
        added.push(id);
      }
    }
    return added;
  }

  /**
   * Load again the tools an earlier turn of the conversation loaded (`ids`, oldest first), the
   * most recent first while the context holds them; one it no longer holds is named to the model
   * as unloaded (deferredNotice), as fitLoaded does in a running session.
   */
  restore(ids: readonly string[]): void {
    const { deferred } = this.plan();
    for (const id of ids.toReversed()) {
      if (!deferred.has(id) || this.discovered.has(id)) continue;
      if (this.discover([id]).length === 0) this.unloaded.add(id);
    }
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
    const { entries, plan } = this.current();
    const { deferred, budgetTokens } = plan;
    const still = entries.filter((e) => deferred.has(e.tool.id) && !this.discovered.has(e.tool.id));
    const notice = deferredToolsNotice(
      still.map((e) => ({ id: e.tool.id, origin: e.origin })),
      noticeLimitChars(budgetTokens),
    );
    const unloaded = still.filter((e) => this.unloaded.has(e.tool.id)).map((e) => e.tool.id);
    if (notice === undefined || unloaded.length === 0) return notice;
    const listed = unloaded.slice(0, UNLOADED_LISTED);
    const more = unloaded.length - listed.length;
    return `${notice}\nUnloaded, since this model's context (${count(this.contextTokens())} tokens) cannot hold them with every request: ${listed.join(", ")}${more > 0 ? ` and ${count(more)} more` : ""}. Their definitions earlier in this conversation no longer apply: to use one, load it again with tool_search (it may not fit with the tools loaded now).`;
  }

  /**
   * Search the deferred tools (discovered ones included, so asking twice still answers), best
   * first. `among` narrows the candidates further (the AI SDK passes the ones it still defers).
   */
  search(query: string, options: { limit?: number; among?: Iterable<string> } = {}): ToolSearchHit[] {
    const { entries, plan } = this.current();
    const { deferred } = plan;
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
