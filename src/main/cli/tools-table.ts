import type { ToolInfo, ToolOrigin } from "../engine/index.ts";

/** Where a tool comes from, as a person reads it: `builtin`, `project plugin my-tool`, … */
export function formatOrigin(origin: ToolOrigin): string {
  if (origin.kind === "builtin") return origin.layer;
  return [origin.layer, origin.kind, origin.name].filter(Boolean).join(" ");
}

function firstLine(text: string): string {
  return (text.trim().split(/\r?\n/, 1)[0] ?? "").trim();
}

/**
 * The registry as a plain-text table: id, kind, read-only or mutating, origin, whether the model
 * starts with the full schema ("loaded") or the name only ("deferred"), and the first line of the
 * description, cut to `width` columns when a width is given (a terminal).
 */
export function formatToolsTable(tools: readonly ToolInfo[], width?: number): string {
  if (tools.length === 0) return "No tools are registered.\n";
  const header = ["ID", "KIND", "ACCESS", "ORIGIN", "SCHEMA", "DESCRIPTION"];
  const rows = tools.map((t) => [
    t.id,
    t.kind,
    t.readOnly ? "read-only" : "mutating",
    formatOrigin(t.origin),
    t.deferred ? "deferred" : "loaded",
    firstLine(t.description),
  ]);
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] as string).length)));
  const lines = all.map((row) => {
    let line = row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col] as number)))
      .join("  ");
    if (width !== undefined && width > 0 && line.length > width)
      line = `${line.slice(0, Math.max(0, width - 1))}…`;
    return line.trimEnd();
  });
  return `${lines.join("\n")}\n`;
}

/**
 * Loud warnings about what an extension was granted beyond the ordinary: a plugin or MCP tool
 * that may fetch from any host (`requires.net.hosts: ["*"]`). Built-ins are left out (web_fetch
 * is the tool for that, and is gated).
 */
export function formatToolWarnings(tools: readonly ToolInfo[]): string {
  const lines = tools
    .filter(
      (t) =>
        t.origin.kind !== "builtin" &&
        (t.requires.net?.hosts ?? []).some((h) => h.trim().split(":")[0] === "*"),
    )
    .map(
      (t) =>
        `WARNING: ${t.id} (${formatOrigin(t.origin)}) may fetch from any public internet host (requires.net.hosts "*"); private and loopback addresses stay refused.${t.gated ? "" : " It is not gated: its calls run without asking."}`,
    );
  return lines.length > 0 ? `\n${lines.join("\n")}\n` : "";
}
