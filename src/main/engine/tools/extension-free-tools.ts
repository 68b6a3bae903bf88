/**
 * The locked built-ins whose call neither reaches nor looks at a plugin or an MCP tool: a host
 * that makes one such call alone (`lathe call read`) need not discover, read, hash and check
 * every plugin folder nor start any MCP server for it, which with 300 plugins took longer than
 * the call. Not here: `task` (its subagent calls any tool) and `tool_search` (it searches the
 * deferred plugin and MCP tools). A locked name cannot be taken by a plugin or a server
 * (locked-tools.ts), so the tool called is the same with or without them.
 */
const EXTENSION_FREE_TOOL_IDS: ReadonlySet<string> = new Set([
  "read",
  "write",
  "edit",
  "glob",
  "grep",
  "bash",
  "todo",
  "question",
  "skill",
  "web_fetch",
  "web_search",
]);

/** Whether a call of `toolId` (exactly as given) needs the plugins and MCP servers loaded. */
export function callNeedsExtensions(toolId: string): boolean {
  return !EXTENSION_FREE_TOOL_IDS.has(toolId);
}
