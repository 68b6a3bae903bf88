import type { JsonSchema } from "./contract.ts";
import { relatedTerms, searchTerms } from "./search-terms.ts";

/** What the index reads of a tool. */
export interface SearchableTool {
  readonly id: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /** The MCP server or plugin it comes from, so a query naming the server finds its tools. */
  readonly origin?: string;
}

/** One result: the tool and how it matched (a substring of its name, of its description, or ranked). */
export interface ToolSearchHit {
  readonly id: string;
  readonly match: "name" | "description" | "ranked";
  /** The BM25 score (0 for a substring match with no matching term). */
  readonly score: number;
}

interface ToolSearchOptions {
  /** At most this many results (default: all). */
  limit?: number;
  /** Search only these tool ids (e.g. the ones still deferred). */
  among?: Iterable<string>;
}

/** How much a term occurring in each part of a tool counts (BM25F-style field weights). */
const FIELD_WEIGHTS = { name: 3, origin: 2, description: 1, parameterName: 1, parameterText: 0.5 } as const;
/** How much a related word in the query counts next to a word the model wrote. */
const RELATED_WEIGHT = 0.35;
const K1 = 1.2;
const B = 0.75;
/** How deep into nested parameter schemas names and descriptions are indexed. */
const MAX_SCHEMA_DEPTH = 4;

interface Doc {
  id: string;
  lowerId: string;
  lowerDescription: string;
  tf: Map<string, number>;
  length: number;
}

/** Parameter names, and parameter descriptions, titles and enum values, of a JSON Schema. */
function schemaText(schema: unknown, depth = 0, out = { names: [] as string[], text: [] as string[] }) {
  if (depth > MAX_SCHEMA_DEPTH || typeof schema !== "object" || schema === null) return out;
  const s = schema as Record<string, unknown>;
  if (typeof s.description === "string" && depth > 0) out.text.push(s.description);
  if (typeof s.title === "string" && depth > 0) out.text.push(s.title);
  if (Array.isArray(s.enum)) out.text.push(s.enum.filter((v) => typeof v === "string").join(" "));
  const properties = s.properties;
  if (typeof properties === "object" && properties !== null) {
    for (const [name, child] of Object.entries(properties)) {
      out.names.push(name);
      schemaText(child, depth + 1, out);
    }
  }
  for (const key of ["items", "additionalProperties"]) schemaText(s[key], depth + 1, out);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = s[key];
    if (Array.isArray(list)) for (const child of list) schemaText(child, depth + 1, out);
  }
  return out;
}

function addTerms(tf: Map<string, number>, terms: readonly string[], weight: number): number {
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + weight);
  return terms.length * weight;
}

/** Separators as the tool id uses them, so "create issue" finds "github_create_issue". */
function asIdentifier(query: string): string {
  return query.replace(/[\s_.-]+/g, "_");
}

/**
 * Finds tools for a query. First the spec's substring match: tools whose name or description
 * contains the query (case-insensitive; spaces in the query may stand for `_`/`-` in a name),
 * exact name first, then name matches, then description matches. Then the rest, ranked with
 * BM25 over the name, the server or plugin it comes from, the description and the parameters'
 * names and descriptions, with words
 * split out of identifiers, stemmed, and common synonyms of the query's words counted a little.
 */
export class ToolSearchIndex {
  private readonly docs: Doc[];
  private readonly df = new Map<string, number>();
  private readonly averageLength: number;

  constructor(tools: Iterable<SearchableTool>) {
    this.docs = [...tools].map((tool) => {
      const tf = new Map<string, number>();
      const params = schemaText(tool.parameters);
      const length =
        addTerms(tf, searchTerms(tool.id), FIELD_WEIGHTS.name) +
        addTerms(tf, searchTerms(tool.origin ?? ""), FIELD_WEIGHTS.origin) +
        addTerms(tf, searchTerms(tool.description), FIELD_WEIGHTS.description) +
        addTerms(tf, searchTerms(params.names.join(" ")), FIELD_WEIGHTS.parameterName) +
        addTerms(tf, searchTerms(params.text.join(" ")), FIELD_WEIGHTS.parameterText);
      for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      return {
        id: tool.id,
        lowerId: tool.id.toLowerCase(),
        lowerDescription: tool.description.toLowerCase(),
        tf,
        length,
      };
    });
    this.averageLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  get size(): number {
    return this.docs.length;
  }

  /** The query's terms with their weights: its own words at 1, related words at RELATED_WEIGHT. */
  private queryTerms(query: string): Map<string, number> {
    const weights = new Map<string, number>();
    const own = searchTerms(query);
    for (const t of own) weights.set(t, 1);
    for (const t of own) {
      for (const r of relatedTerms(t)) if (!weights.has(r)) weights.set(r, RELATED_WEIGHT);
    }
    return weights;
  }

  private score(doc: Doc, terms: Map<string, number>): number {
    const n = this.docs.length;
    let score = 0;
    for (const [term, weight] of terms) {
      const tf = doc.tf.get(term);
      if (tf === undefined) continue;
      const df = this.df.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (weight * idf * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * doc.length) / this.averageLength));
    }
    return score;
  }

  /**
   * The tools a query names and nothing else: every word of it (split at commas and spaces) is
   * a tool's exact name (case aside), in the order named; undefined when any word is not. A
   * leading `select:` (the form some models were trained to write names in) is left out.
   */
  private named(query: string, among: ReadonlySet<string> | undefined): ToolSearchHit[] | undefined {
    const docs = among ? this.docs.filter((d) => among.has(d.id)) : this.docs;
    const hits: ToolSearchHit[] = [];
    const names = query.replace(/^select:/i, "");
    const words = names.split(/[\s,]+/).filter(Boolean);
    if (words.length === 0) return undefined;
    for (const word of words) {
      const lower = word.toLowerCase();
      const doc = docs.find((d) => d.id === word) ?? docs.find((d) => d.lowerId === lower);
      if (doc === undefined) return undefined;
      if (!hits.some((h) => h.id === doc.id)) hits.push({ id: doc.id, match: "name", score: 0 });
    }
    return hits;
  }

  /**
   * Ranked results, best first; an empty or blank query finds nothing. A query made only of
   * exact tool names finds those tools alone: the model asked for them, and each tool found is
   * loaded into its context.
   */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const needle = query.trim().toLowerCase();
    if (needle === "") return [];
    const among = options.among ? new Set(options.among) : undefined;
    const named = this.named(query.trim(), among);
    if (named !== undefined) {
      return options.limit === undefined ? named : named.slice(0, Math.max(0, options.limit));
    }
    const terms = this.queryTerms(needle);
    const identifier = asIdentifier(needle);
    const hits: Array<ToolSearchHit & { tier: number }> = [];
    for (const doc of this.docs) {
      if (among && !among.has(doc.id)) continue;
      const score = this.score(doc, terms);
      let tier: number;
      if (doc.lowerId === needle || doc.lowerId === identifier) tier = 0;
      else if (doc.lowerId.includes(needle) || doc.lowerId.includes(identifier)) tier = 1;
      else if (doc.lowerDescription.includes(needle)) tier = 2;
      else if (score > 0) tier = 3;
      else continue;
      hits.push({
        id: doc.id,
        match: tier <= 1 ? "name" : tier === 2 ? "description" : "ranked",
        score,
        tier,
      });
    }
    hits.sort((a, b) => a.tier - b.tier || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const limited = options.limit === undefined ? hits : hits.slice(0, Math.max(0, options.limit));
    return limited.map(({ id, match, score }) => ({ id, match, score }));
  }
}
