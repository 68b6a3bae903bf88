import type { ToolOrigin } from "../../shared/api-contract.ts";

/** Where a tool comes from, e.g. "builtin · builtin" or "project · plugin · my-tool". */
export function originLabel(origin: ToolOrigin): string {
  return [origin.layer, origin.kind, origin.name]
    .filter((part) => part !== undefined && part !== "")
    .join(" · ");
}

/** The same as a phrase, e.g. "builtin", "project plugin word_count", "global MCP server files". */
export function originPhrase(origin: ToolOrigin): string {
  if (origin.kind === "builtin") return "builtin";
  const kind = origin.kind === "mcp" ? "MCP server" : "plugin";
  return [origin.layer, kind, origin.name].filter((part) => part !== undefined && part !== "").join(" ");
}
