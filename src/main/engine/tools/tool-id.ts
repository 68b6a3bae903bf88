/** What a tool id may be, whoever defines the tool (built-in, plugin, MCP server): a letter, then letters, digits, `_` or `-`. */
export const TOOL_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
