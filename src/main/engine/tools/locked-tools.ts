/** The tool that loads deferred tools' schemas; it is never deferred itself. */
export const TOOL_SEARCH_ID = "tool_search";

/**
 * The locked built-ins. The model always sees their full definitions unless config says
 * otherwise, and no plugin or MCP tool may take their names: a plugin named `read` is a load
 * error, an MCP tool named `read` is bound as `mcp__<server>__read`.
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
