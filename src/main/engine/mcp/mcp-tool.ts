import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { RepoWatch } from "../sandbox/planted-repos.ts";
import type { JsonSchema, ToolDefinition, ToolRuntime } from "../tools/contract.ts";
import { stableStringify } from "../tools/stable-stringify.ts";
import type { ToolSession } from "../tools/tool-session.ts";
import { leftOutSize, lineCount, OUTPUT_LIMITS, utf8Head } from "../tools/truncation.ts";
import { describedAs, modelDescription, modelSchema } from "./mcp-description.ts";
import { checkStructuredResult } from "./mcp-output-schema.ts";
import { resultText, saveImages, toToolData, truncateToolData, type McpToolData } from "./mcp-result.ts";

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
  /**
   * For a server the OS sandbox confines to the workspace: a watch over the git repositories
   * below it for one call (what the server plants there is made inert after the call, as for a
   * bash command); undefined, or a function giving undefined, when there is nothing to watch.
   */
  watchRepos?: (() => Promise<RepoWatch> | undefined) | undefined;
}

const MCP_TOOL_TIMEOUT_MS = 60_000;
/** The most of a server's error text an envelope carries; all of it is kept in a sidecar file. */
const MCP_ERROR_BYTES = 16 * 1024;

/**
 * A server's error text as the model gets it: whole when short, else its head and where the
 * rest is (an error envelope is not cut like an output, and a server may send megabytes).
 */
async function cappedErrorText(text: string, id: string, session: ToolSession): Promise<string> {
  const head = utf8Head(text, MCP_ERROR_BYTES);
  if (head.length === text.length) return text;
  const rest = text.slice(head.length);
  const where = await session.writeSidecarFile(id, Buffer.from(text, "utf8"), "txt").then(
    (file) => `All of it is in ${file}.`,
    (err: unknown) => `It could not be kept: ${(err as Error).message}.`,
  );
  const size = leftOutSize(Buffer.byteLength(rest, "utf8"), lineCount(rest));
  return `${head}\n[The server's error text was cut: ${size} are left out. ${where}]`;
}

/**
 * An MCP tool as a Lathe tool: the server's schema and description, gated like any tool that
 * acts outside the process, executed by `tools/call` with the call's abort signal.
 */
export function mcpTool(spec: McpToolSpec): ToolDefinition<Record<string, unknown>, McpToolData> {
  const { id, server, tool, caller } = spec;
  const readOnly = tool.annotations?.readOnlyHint ?? false;
  return {
    id,
    description: modelDescription(describedAs(tool, server)),
    parameters: modelSchema(tool.inputSchema) as JsonSchema,
    requires: {},
    readOnly,
    gated: true,
    kind: readOnly ? "read" : "other",
    timeoutMs: MCP_TOOL_TIMEOUT_MS,
    enabled: true,
    defer: spec.defer,
    deriveApprovalKey: (args) => `${id}:${stableStringify(args)}`,
    async execute(args, runtime) {
      const watch = await spec.watchRepos?.();
      let data: McpToolData;
      try {
        data = await callOnce(args, runtime);
      } catch (err) {
        const planted = await watch?.disarm();
        if (planted && ToolCallError.isInstance(err))
          throw new ToolCallError(`${planted.trim()}\n${err.message}`, err.code, { cause: err });
        throw err;
      }
      const planted = await watch?.disarm();
      // First, so that cutting a long answer cannot drop it.
      return planted ? { ...data, content: `${planted.trim()}\n${data.content}` } : data;
    },
    truncate: (data) => truncateToolData(data, OUTPUT_LIMITS.readBytes),
  };

  async function callOnce(args: Record<string, unknown>, runtime: ToolRuntime): Promise<McpToolData> {
    let result: CallToolResult;
    try {
      // The SDK's own timeout sits just past the pipeline's, which stops the call first.
      result = await caller.callTool(tool.name, args, runtime.signal, MCP_TOOL_TIMEOUT_MS + 5_000);
    } catch (err) {
      if (!ToolCallError.isInstance(err)) throw err;
      const text = await cappedErrorText(err.message, id, runtime.session);
      throw text === err.message ? err : new ToolCallError(text, err.code, { cause: err });
    }
    if (!result.isError && tool.outputSchema) {
      const problem = await checkStructuredResult(
        tool.outputSchema,
        result.structuredContent,
        runtime.signal,
      );
      if (problem) {
        const bytes = Buffer.from(JSON.stringify(result, null, 2), "utf8");
        const where = await runtime.session.writeSidecarFile(id, bytes, "json").then(
          (file) => `The whole answer is in ${file}.`,
          (err: unknown) => `It could not be kept: ${(err as Error).message}.`,
        );
        throw new ToolCallError(
          `${id} ran on MCP server "${server}", but ${problem}. It may have acted: do not call it again just to retry. The server's author has to fix the tool or its schema. ${where}`,
        );
      }
    }
    if (result.isError) {
      const text = resultText(result).trim();
      throw new ToolCallError(
        text
          ? await cappedErrorText(text, id, runtime.session)
          : `${id} failed on MCP server "${server}" without saying why.`,
      );
    }
    const images = await saveImages(result, (bytes, extension) =>
      runtime.session.writeSidecarFile(id, bytes, extension),
    );
    return toToolData(result, images);
  }
}
