/**
 * The MCP SDK, loaded when the first server starts (it costs ~100 ms to import): an engine with
 * no MCP servers configured never pays for it, and `lathe run` reaches the model sooner.
 */
export async function loadMcpSdk() {
  const [client, types, stdio, stdioClient, http] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  return {
    Client: client.Client,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ToolSchema: types.ToolSchema,
    CallToolResultSchema: types.CallToolResultSchema,
    // The stdio wire format and the variables a stdio server inherits, as the SDK's own transport
    // has them (Lathe's, spawned-stdio-transport.ts, starts the server through its spawner).
    deserializeMessage: stdio.deserializeMessage,
    serializeMessage: stdio.serializeMessage,
    getDefaultEnvironment: stdioClient.getDefaultEnvironment,
    // Windows only: there the host starts a server itself (see mcp-transport.ts).
    StdioClientTransport: stdioClient.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  };
}

/** What loadMcpSdk resolves to. */
export type McpSdk = Awaited<ReturnType<typeof loadMcpSdk>>;
