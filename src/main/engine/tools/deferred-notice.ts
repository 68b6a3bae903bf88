import type { ToolOrigin } from "./contract.ts";
import { charsForTokens } from "./token-estimate.ts";

/** A deferred tool as the notice names it: its id, and where it comes from (to count by source). */
export interface NoticeTool {
  readonly id: string;
  readonly origin: ToolOrigin;
}

const HEAD =
  "Deferred tools (only their names are shown here; call tool_search with what you need, or with a tool's exact name, to load its parameters before calling it): ";

/** The share of the deferral budget the notice may take; never less than MIN_NOTICE_CHARS. */
const NOTICE_SHARE = 0.25;
/** Room for the head and a count per source, whatever the budget. */
const MIN_NOTICE_CHARS = 1_600;
/** Sources counted by name when names are left out; the rest are counted together. */
const MAX_COUNTED_SOURCES = 8;
/** Characters of a server's or plugin's name quoted in the counts. */
const MAX_SOURCE_NAME = 48;

/** The longest the notice may be for a deferral budget of `budgetTokens`. */
export function noticeLimitChars(budgetTokens: number): number {
  return Math.max(MIN_NOTICE_CHARS, charsForTokens(Math.floor(budgetTokens * NOTICE_SHARE)));
}

/** The length of the notice naming every tool of `ids` (the form used while it fits). */
export function fullNoticeChars(idChars: number, count: number): number {
  return count === 0 ? 0 : HEAD.length + idChars + 2 * (count - 1) + 1;
}

function sourceOf(origin: ToolOrigin): string {
  if (origin.kind === "mcp") {
    const name = origin.name ?? "";
    return `MCP server "${name.length > MAX_SOURCE_NAME ? `${name.slice(0, MAX_SOURCE_NAME)}…` : name}"`;
  }
  return origin.kind === "plugin" ? "plugins" : "built-ins";
}

/** `; and 300 more from MCP server "a", 12 more from plugins (…).` for the names left out, by source. */
function leftOutText(left: ReadonlyArray<readonly [string, number]>, afterNames = true): string {
  const counted = left.filter(([, n]) => n > 0).toSorted((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const more = afterNames ? " more" : "";
  const named = counted.slice(0, MAX_COUNTED_SOURCES).map(([source, n]) => `${n}${more} from ${source}`);
  const rest = counted.slice(MAX_COUNTED_SOURCES);
  if (rest.length > 0) {
    const n = rest.reduce((sum, [, count]) => sum + count, 0);
    named.push(`${n}${more} from ${rest.length} other sources`);
  }
  const counts = `${named.join(", ")} (tool_search finds them by what they do or by their server's name).`;
  return afterNames ? `; and ${counts}` : counts;
}

/**
 * The system-prompt line naming the deferred tools, or undefined when there are none. It names
 * every one while that fits in `maxChars`; past that it names as many as fit, taking one from
 * each server (and from the plugins) in turn, and counts the rest by server, so the line stays
 * within its budget however many tools are deferred and the model still learns where to search.
 */
export function deferredToolsNotice(tools: readonly NoticeTool[], maxChars = Infinity): string | undefined {
  if (tools.length === 0) return undefined;
  const sorted = tools.toSorted((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const full = `${HEAD}${sorted.map((t) => t.id).join(", ")}.`;
  if (full.length <= maxChars) return full;

  const groups = new Map<string, string[]>();
  for (const tool of sorted) {
    const source = sourceOf(tool.origin);
    const ids = groups.get(source) ?? [];
    ids.push(tool.id);
    groups.set(source, ids);
  }
  const sources = [...groups.keys()].sort();
  const listed = new Map(sources.map((s) => [s, 0]));
  const left = (): Array<[string, number]> =>
    sources.map((s) => [s, (groups.get(s)?.length ?? 0) - (listed.get(s) ?? 0)]);
  const names: string[] = [];
  let namesChars = 0;
  let room = true;
  for (let round = 0; room; round++) {
    let any = false;
    for (const source of sources) {
      const id = groups.get(source)?.[round];
      if (id === undefined) continue;
      any = true;
      listed.set(source, round + 1);
      const chars = namesChars + (names.length > 0 ? 2 : 0) + id.length;
      if (HEAD.length + chars + leftOutText(left()).length > maxChars) {
        listed.set(source, round);
        room = false;
        break;
      }
      names.push(id);
      namesChars = chars;
    }
    if (!any) break;
  }
  return names.length > 0
    ? `${HEAD}${names.join(", ")}${leftOutText(left())}`
    : `${HEAD}${leftOutText(left(), false)}`;
}
