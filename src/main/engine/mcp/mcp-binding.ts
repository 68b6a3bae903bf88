import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SourcedMcpServer } from "../config/policy-config.ts";
import type { RepoWatch } from "../sandbox/planted-repos.ts";
import type { ToolOrigin } from "../tools/contract.ts";
import { lockedLookalike } from "../tools/locked-tools.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import { chooseToolId } from "./mcp-naming.ts";
import { pinStatus, toolBlockReason, toolHash, toolPinKey } from "./mcp-pins.ts";
import { assertOutputSchemaCompiles } from "./mcp-output-schema.ts";
import { mcpTool, type McpToolCaller } from "./mcp-tool.ts";
import type { RefusedTool } from "./mcp-tool-listing.ts";

export function mcpOrigin(server: SourcedMcpServer): ToolOrigin {
  return { layer: server.layer, kind: "mcp", name: server.name };
}

function isServer(server: SourcedMcpServer): (origin: ToolOrigin) => boolean {
  return (origin) => origin.kind === "mcp" && origin.name === server.name && origin.layer === server.layer;
}

/** Take a server's tools and disabled entries out of the registry. */
export function unbindServer(registry: ToolRegistry, server: SourcedMcpServer): void {
  registry.unregister(server.layer, isServer(server));
  const matches = isServer(server);
  registry.clearDisabled((entry) => matches(entry.origin));
}

interface BindInput {
  registry: ToolRegistry;
  server: SourcedMcpServer;
  root: string;
  tools: readonly Tool[];
  /** Listed entries no call can use (malformed, or a name listed twice), each disabled with why. */
  refused?: readonly RefusedTool[];
  caller: McpToolCaller;
  /** A watch over the workspace's git repositories for one call, while the server is confined. */
  watchRepos?: () => Promise<RepoWatch> | undefined;
  /** The pins of the server's scope. */
  pins: Readonly<Record<string, string>>;
}

/**
 * Register a server's listed tools: each checked against its pin (a changed descriptor is
 * disabled with the reason), named flat unless that name is bound already, its schema compiled
 * by the registry (a refused schema disables that tool only). Returns the pins to record for
 * tools seen for the first time (trust on first use).
 */
export function bindServerTools(input: BindInput): Record<string, string> {
  const { registry, server, tools } = input;
  const origin = mcpOrigin(server);
  const config = server.config;
  const firstSeen: Record<string, string> = {};
  for (const entry of input.refused ?? []) {
    registry.reportDisabled({
      id: entry.name,
      origin,
      reason:
        entry.kind === "duplicate"
          ? `A second tool "${entry.name}" of MCP server "${server.name}" is left out: ${entry.reason}, so only the first one listed is used. The server's author has to fix it.`
          : `Tool "${entry.name}" of MCP server "${server.name}" is disabled: ${entry.reason}. The server's author has to fix it; its other tools work.`,
    });
  }
  for (const tool of tools) {
    if (tool.execution?.taskSupport === "required") {
      registry.reportDisabled({
        id: tool.name,
        origin,
        reason: `Tool "${tool.name}" of MCP server "${server.name}" is disabled: it only runs as an MCP task, which Lathe does not support yet.`,
      });
      continue;
    }
    const key = toolPinKey(server.name, tool.name);
    const hash = toolHash(tool);
    const status = pinStatus(input.pins, key, hash);
    const blocked = toolBlockReason(server, tool, status, input.root);
    if (blocked) {
      registry.reportDisabled({ id: tool.name, origin, reason: blocked });
      continue;
    }
    // A locked built-in's name (or a case variant of it, `Read`) is taken even where that
    // built-in is not registered.
    const id = chooseToolId(
      server.name,
      tool.name,
      (candidate) => lockedLookalike(candidate) !== undefined || registry.get(candidate) !== undefined,
    );
    const defer = config.defer === true || config.deferTools.includes(tool.name);
    if (tool.outputSchema) {
      try {
        assertOutputSchemaCompiles(tool.outputSchema);
      } catch (err) {
        registry.reportDisabled({
          id: tool.name,
          origin,
          reason: `Tool "${tool.name}" of MCP server "${server.name}" is disabled: its output schema is not valid JSON Schema (${(err as Error).message}), so its answers cannot be checked. The server's author has to fix it; its other tools work.`,
        });
        continue;
      }
    }
    try {
      registry.register(
        mcpTool({ id, server: server.name, tool, defer, caller: input.caller, watchRepos: input.watchRepos }),
        origin,
      );
    } catch (err) {
      registry.reportDisabled({
        id: tool.name,
        origin,
        reason: `Tool "${tool.name}" of MCP server "${server.name}" is disabled: ${(err as Error).message} The server's author has to fix the tool's input schema.`,
      });
      continue;
    }
    if (status === "new") firstSeen[key] = hash;
  }
  return firstSeen;
}
