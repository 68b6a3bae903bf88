import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newMcpClient } from "./mcp-client.ts";
import { loadMcpSdk } from "./mcp-sdk.ts";

// The SDK's client checks a tool's structured answer against its output schema in its own
// callTool, with an ajv that reports to the console by default: a schema naming a format ajv does
// not know printed "unknown format … ignored" on the terminal. Lathe does not call callTool (it
// checks answers itself), but the client it makes must print nothing should anything ever do.

/** A server with one tool whose output schema names a format of its own, answering `ticket`. */
async function serverAnswering(ticket: unknown): Promise<InMemoryTransport> {
  const server = new Server({ name: "tickets", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "open_ticket",
        inputSchema: { type: "object" },
        outputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { id: { type: "string", format: "x-ticket-id" } },
          required: ["id"],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: "text", text: JSON.stringify(ticket) }],
    structuredContent: ticket as Record<string, unknown>,
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return clientSide;
}

/** Everything written to the console or to stdout/stderr while `work` runs. */
async function printedDuring(work: () => Promise<void>): Promise<string[]> {
  const printed: string[] = [];
  const record = (...parts: unknown[]) => void printed.push(parts.map(String).join(" "));
  const spies = [
    ...(["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(record),
    ),
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (record(chunk), true)),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (record(chunk), true)),
  ];
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return printed;
}

/** List the tools, then call the tool through the SDK's own callTool (which checks the answer). */
async function callThrough(client: Client, ticket: unknown): Promise<unknown> {
  await client.connect(await serverAnswering(ticket));
  try {
    await client.listTools();
    return await client.callTool({ name: "open_ticket", arguments: {} }).catch((err: unknown) => err);
  } finally {
    await client.close();
  }
}

afterEach(() => vi.restoreAllMocks());

describe("the MCP client Lathe makes", () => {
  it("the SDK's default client prints a warning for an unknown format (the control)", async () => {
    const printed = await printedDuring(async () => {
      await callThrough(new Client({ name: "plain", version: "1" }, { capabilities: {} }), { id: "T-1" });
    });
    expect(printed.join("\n")).toMatch(/unknown format "x-ticket-id" ignored/);
  });

  it("prints nothing while it lists and calls tools, and still checks the structured answer", async () => {
    const sdk = await loadMcpSdk();
    let fits: unknown;
    let misfits: unknown;
    const printed = await printedDuring(async () => {
      fits = await callThrough(newMcpClient(sdk), { id: "T-1" });
      misfits = await callThrough(newMcpClient(sdk), { ticket: 7 });
    });
    expect(printed).toEqual([]);
    expect(fits).toMatchObject({ structuredContent: { id: "T-1" } });
    expect(misfits).toBeInstanceOf(Error);
    expect((misfits as Error).message).toMatch(/Structured content does not match the tool's output schema/);
    expect((misfits as Error).message).toMatch(/must have required property 'id'/);
  });
});
