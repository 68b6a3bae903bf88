import { resolveLatheHome } from "../config/lathe-home.ts";
import { namesStdioServers } from "../mcp/stdio-servers-named.ts";

/**
 * Start the process spawner now when the settings name stdio MCP servers, which start through
 * it: `lathe run` calls it before it loads the agent's code (the ai SDK), so the spawner boots
 * while that loads instead of after (the servers then wait on it less). Settings that name none
 * start nothing, and load nothing more: the spawner's client is a chunk of its own in the CLI
 * bundle, which `lathe tools` or a single `read` never load. A spawner that could not start is
 * started again, saying why, by the first request (SpawnerClient.warm).
 */
export async function warmSpawnerForServers(
  root: string,
  latheHome: string = resolveLatheHome(),
): Promise<void> {
  if (process.platform === "win32" || !namesStdioServers(root, latheHome)) return;
  const { warmSpawner } = await import("./process-spawner.ts");
  warmSpawner();
}
