/** The tool that loads deferred tools' schemas; it is never deferred itself. */
export const TOOL_SEARCH_ID = "tool_search";

/**
 * The locked built-ins. The model always sees their full definitions unless config says
 * otherwise, and no plugin or MCP tool may take their names, nor a name that differs only in
 * case, `_` or `-` (see lockedLookalike): a plugin named `read` or `Read` is a load error, an MCP
 * tool named `read` or `Read` is bound as `mcp__<server>__read`.
 */
export const LOCKED_TOOL_IDS: ReadonlySet<string> = new Set([
  "read",
  "write",
  "edit",
  "glob",
  "grep",
  "bash",
  "todo",
  "task",
  "question",
  "skill",
  "web_fetch",
  "web_search",
  TOOL_SEARCH_ID,
]);

/** A tool id as lookalikes compare: lower case, without `_` and `-` (`Web-Fetch` → `webfetch`). */
function folded(id: string): string {
  return id.toLowerCase().replace(/[_-]/g, "");
}

const LOCKED_BY_FOLDED: ReadonlyMap<string, string> = new Map(
  [...LOCKED_TOOL_IDS].map((id) => [folded(id), id]),
);

/**
 * The locked built-in that `id` is or imitates, or undefined. Names that differ only in case,
 * `_` or `-` (`Read`, `BASH`, `WebFetch`, `tool-search`) count: models trained on other agents'
 * `Read` and `Bash` call those names, and must not reach a plugin's or a server's tool by it.
 */
export function lockedLookalike(id: string): string | undefined {
  return LOCKED_BY_FOLDED.get(folded(id));
}
