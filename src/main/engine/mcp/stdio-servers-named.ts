import path from "node:path";
import { parseJsonText } from "../config/json-text.ts";
import { readSettingsBytes } from "../config/settings-bytes.ts";

/** The `mcpServers` object of one settings file, as written; none when it cannot be read or parsed. */
function serversIn(file: string): Record<string, unknown> {
  const read = readSettingsBytes(file);
  if (read.state !== "read") return {};
  const parsed = parseJsonText(read.bytes);
  if (!parsed.ok || typeof parsed.json !== "object" || parsed.json === null) return {};
  const servers = (parsed.json as { mcpServers?: unknown }).mcpServers;
  return typeof servers === "object" && servers !== null && !Array.isArray(servers)
    ? (servers as Record<string, unknown>)
    : {};
}

/**
 * Whether the settings name a stdio MCP server (one with a `command`) that is not disabled: the
 * user's, then the project's (same name: the project's wins), as `configuredMcpServers` reads
 * them, but without loading the settings' schema. A hint, for starting the process spawner
 * before the engine's code has loaded: a file that cannot be read or parsed counts as naming
 * none here, and the engine's own reading reports it as it always does.
 */
export function namesStdioServers(root: string, latheHome: string): boolean {
  const byName = new Map<string, unknown>();
  for (const file of [path.join(latheHome, "settings.json"), path.join(root, ".lathe", "settings.json")])
    for (const [name, config] of Object.entries(serversIn(file))) byName.set(name, config);
  return [...byName.values()].some(
    (config) =>
      typeof config === "object" &&
      config !== null &&
      "command" in config &&
      (config as { disabled?: unknown }).disabled !== true,
  );
}
