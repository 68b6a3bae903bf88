/** A tool's origin as the API reports it (the audit trail's rows carry the same fields as text). */
interface Origin {
  layer: string;
  kind: string;
  name?: string | undefined;
}

/** Where a tool comes from, e.g. "builtin" or "project · plugin · my-tool". */
export function originLabel(origin: Origin): string {
  if (origin.kind === "builtin") return "builtin";
  return [origin.layer, origin.kind, origin.name]
    .filter((part) => part !== undefined && part !== "")
    .join(" · ");
}

/** The same as a phrase, e.g. "builtin", "project plugin word_count", "global MCP server files". */
export function originPhrase(origin: Origin): string {
  if (origin.kind === "builtin") return "builtin";
  const kind = origin.kind === "mcp" ? "MCP server" : "plugin";
  return [origin.layer, kind, origin.name].filter((part) => part !== undefined && part !== "").join(" ");
}
