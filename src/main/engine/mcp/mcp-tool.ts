import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { JsonSchema, ToolDefinition } from "../tools/contract.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import { OUTPUT_LIMITS, truncateTextField } from "../tools/truncation.ts";
import { resultText, saveImages, toToolData, type McpToolData } from "./mcp-result.ts";

/** The part of a connection a tool needs: a way to call it. */
export interface McpToolCaller {
  callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<CallToolResult>;
}

interface McpToolSpec {
  /** The registry id (the flat name, or `mcp__<server>__<tool>` after a collision). */
  id: string;
  server: string;
  tool: Tool;
  defer: boolean;
  caller: McpToolCaller;
}

const MCP_TOOL_TIMEOUT_MS = 60_000;

/**
 * An MCP tool as a Lathe tool: the server's schema and description, gated like any tool that
 * acts outside the process, executed by `tools/call` with the call's abort signal.
 */
export function mcpTool(spec: McpToolSpec): ToolDefinition<Record<string, unknown>, McpToolData> {
  const { id, server, tool, caller } = spec;
  const readOnly = tool.annotations?.readOnlyHint ?? false;
  return {
    id,
    description:
      tool.description ?? tool.annotations?.title ?? tool.title ?? `${tool.name} (from MCP server ${server})`,
    parameters: tool.inputSchema as JsonSchema,
    requires: {},
    readOnly,
    gated: true,
    kind: readOnly ? "read" : "other",
    timeoutMs: MCP_TOOL_TIMEOUT_MS,
    enabled: true,
    defer: spec.defer,
    deriveApprovalKey: (args) => `${id}:${stableStringify(args)}`,
    async execute(args, runtime) {
      // The SDK's own timeout sits just past the pipeline's, which stops the call first.
      const result = await caller.callTool(tool.name, args, runtime.signal, MCP_TOOL_TIMEOUT_MS + 5_000);
      if (result.isError) {
        const text = resultText(result).trim();
        throw new ToolCallError(text || `${id} failed on MCP server "${server}" without saying why.`);
      }
      const images = await saveImages(result, (bytes, extension) =>
        runtime.session.writeSidecarFile(id, bytes, extension),
      );
      return toToolData(result, images);
    },
    truncate: (data) => truncateTextField(data, "content", OUTPUT_LIMITS.readBytes),
  };
}
