import type { DisabledTool, ToolInfo, ToolOrigin } from "../engine/index.ts";
import { shownText } from "./shown-path.ts";

/** A tool as `lathe tools --json` lists it: bound (`enabled: true`), or disabled with why and the fix. */
type ListedTool =
  | (ToolInfo & { enabled: true })
  | { id: string; enabled: false; origin: ToolOrigin; reason: string; fix?: string };

/**
 * The bound tools, then the disabled ones (plugins and MCP tools that did not load: a pin that
 * changed since trust, a manifest error, turned off in settings, …), each sorted by id. Problems
 * that name no tool (an unreadable tools folder) are left to stderr.
 */
export function listTools(tools: readonly ToolInfo[], disabled: readonly DisabledTool[]): ListedTool[] {
  const off = disabled
    .filter((d) => d.origin.name !== undefined)
    .map((d) => ({
      id: d.id,
      enabled: false as const,
      origin: d.origin,
      reason: d.reason,
      ...(d.fix !== undefined ? { fix: d.fix } : {}),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [...tools.map((t) => ({ ...t, enabled: true as const })), ...off];
}

/**
 * The disabled tools as text: each with its origin, why, and the fix. What a plugin or an MCP
 * server wrote (its output quoted in why it failed) is shown with control characters escaped.
 */
export function formatDisabledTools(tools: readonly ListedTool[]): string {
  const off = tools.filter((t) => !t.enabled);
  if (off.length === 0) return "";
  const blocks = off.map(
    (t) =>
      `  ${shownText(t.id)} (${formatOrigin(t.origin)})\n    why: ${shownText(t.reason)}${t.fix !== undefined ? `\n    fix: ${shownText(t.fix)}` : ""}`,
  );
  return `\nDisabled (${off.length}):\n${blocks.join("\n")}\n`;
}

/** Where a tool comes from, as a person reads it: `builtin`, `project plugin my-tool`, … */
export function formatOrigin(origin: ToolOrigin): string {
  if (origin.kind === "builtin") return origin.layer;
  return shownText([origin.layer, origin.kind, origin.name].filter(Boolean).join(" "));
}

function firstLine(text: string): string {
  return (text.trim().split(/\r?\n/, 1)[0] ?? "").trim();
}

/**
 * The registry as a plain-text table: id, kind, read-only or mutating, origin, whether the model
 * starts with the full schema ("loaded") or the name only ("deferred"), and the first line of the
 * description (an MCP server's or a plugin's words: control characters escaped), cut to `width`
 * columns when a width is given (a terminal).
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
    shownText(firstLine(t.description)),
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
 * Which tools the model starts with by name only, and why: those that ask to be (`defer: true`),
 * then those past the budget for tool definitions, 10% of the context of `contextTokens` that
 * `lathe tools` assumes (a run sizes it by its model's context, so the second list can differ).
 */
export function formatDeferredTools(tools: readonly ToolInfo[], contextTokens: number): string {
  const deferred = tools.filter((t) => t.deferred);
  if (deferred.length === 0) return "";
  const ids = (by: ToolInfo["deferredBy"]): string =>
    deferred
      .filter((t) => t.deferredBy === by)
      .map((t) => shownText(t.id))
      .join(", ");
  const lines = [
    `\nDeferred (${deferred.length}): the model starts with their names only, and loads one with tool_search when it needs it.`,
  ];
  const byConfig = ids("config");
  if (byConfig !== "") lines.push(`  ${byConfig}: marked defer (in tool.yaml or the MCP server's settings)`);
  const byBudget = ids("budget");
  if (byBudget !== "") {
    lines.push(
      `  ${byBudget}: past 10% of a ${contextTokens}-token context, the share tool definitions may take (the context assumed when the model's is not known; lathe run sizes it by its model's, so a larger one may show them in full)`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Which bound tools hide another implementation of the same name (a global plugin `word_count`
 * over the bundled one), so that shadowing is never silent: one line per tool.
 */
export function formatShadowing(tools: readonly ToolInfo[]): string {
  const lines = tools
    .filter((t) => t.shadows.length > 0)
    .map((t) => `  ${t.id}: ${formatOrigin(t.origin)} hides ${t.shadows.map(formatOrigin).join(", ")}`);
  return lines.length > 0 ? `\nShadowing (${lines.length}):\n${lines.join("\n")}\n` : "";
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
