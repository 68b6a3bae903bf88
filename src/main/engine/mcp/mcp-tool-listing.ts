import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { jsonShapeProblem, MAX_SCHEMA_DEPTH } from "../tools/json-shape.ts";
import type { McpSdk } from "./mcp-sdk.ts";

/** A listed tool Lathe cannot use, and why (for the person: the server's author has to fix it). */
export interface RefusedTool {
  /** Its name, or `#<n>` (its place in the listing) when it has no usable name. */
  name: string;
  /** `duplicate`: another tool of this name came first, and is the one used. */
  kind: "malformed" | "duplicate";
  reason: string;
}

/** What a server offers: its usable tools, each name once, and the entries refused. */
export interface ToolListing {
  tools: Tool[];
  refused: RefusedTool[];
}

/** Tools read at most: a server listing more is read no further. */
const MAX_TOOLS = 10_000;
/**
 * Pages followed at most, so a server answering a cursor forever (empty pages, each with a
 * next cursor) cannot keep the listing going.
 */
const MAX_PAGES = 1_000;

/** Why Lathe will not read a listed tool's schemas (nested too deep), or undefined. */
function schemaShapeProblem(tool: Tool): string | undefined {
  for (const [which, schema] of [
    ["input", tool.inputSchema],
    ["output", tool.outputSchema],
  ] as const) {
    if (schema === undefined) continue;
    const problem = jsonShapeProblem(schema, MAX_SCHEMA_DEPTH);
    if (problem !== undefined) return `its ${which} schema ${problem}, which Lathe does not read`;
  }
  return undefined;
}

/** A page read without judging its tools, so one malformed tool does not refuse the others. */
const LenientPage = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** What a schema refused, on one line: `where: what` for each problem. */
function issuesText(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(the answer)"}: ${issue.message}`)
    .join("; ");
}

function toolName(raw: unknown, index: number): string {
  const name = (raw as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : `#${index}`;
}

/**
 * One page, as the SDK's `listTools` reads it (Lathe does not rely on the output schemas it
 * records: a bound tool checks its answers against its own, mcp-output-schema.ts). When the SDK
 * refuses the page for its content — a malformed tool, an output schema that does not compile —
 * it is read again leniently and each tool judged alone.
 */
async function listPage(
  client: Client,
  sdk: McpSdk,
  cursor: string | undefined,
  timeout: number,
  offset: number,
): Promise<{ tools: Tool[]; refused: RefusedTool[]; nextCursor: string | undefined }> {
  const params = cursor === undefined ? undefined : { cursor };
  try {
    const page = await client.listTools(params, { timeout });
    return { tools: page.tools, refused: [], nextCursor: page.nextCursor };
  } catch (err) {
    // A timeout or a lost connection is the connection's to report.
    if (err instanceof sdk.McpError) throw err;
  }
  const parsed = LenientPage.safeParse(
    await client.request({ method: "tools/list", ...(params ? { params } : {}) }, z.unknown(), { timeout }),
  );
  if (!parsed.success) {
    throw new Error(`its tools/list answer is not valid MCP (${issuesText(parsed.error)})`);
  }
  const tools: Tool[] = [];
  const refused: RefusedTool[] = [];
  parsed.data.tools.forEach((raw, i) => {
    const tool = sdk.ToolSchema.safeParse(raw);
    if (tool.success) tools.push(tool.data);
    else
      refused.push({
        name: toolName(raw, offset + i),
        kind: "malformed",
        reason: `the server lists it in a shape MCP does not allow (${issuesText(tool.error)})`,
      });
  });
  return { tools, refused, nextCursor: parsed.data.nextCursor };
}

/**
 * Every tool a server lists, page after page. A tool MCP does not allow is refused alone, with
 * why; so is a second tool of the same name (a call names the tool, so only the first can be
 * meant; binding both would also pin each over the other, a false "changed" at every start).
 */
export async function listServerTools(client: Client, sdk: McpSdk, timeout: number): Promise<ToolListing> {
  const tools: Tool[] = [];
  const refused: RefusedTool[] = [];
  const names = new Set<string>();
  const asked = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    if (pages === MAX_PAGES) {
      throw new Error(
        `its tools/list went on for ${MAX_PAGES} pages (${tools.length} tools) and still gave a next cursor, so Lathe stopped asking. The server's author has to fix its paging`,
      );
    }
    if (cursor !== undefined) asked.add(cursor);
    const page = await listPage(client, sdk, cursor, timeout, tools.length + refused.length);
    pages++;
    if (page.nextCursor !== undefined && asked.has(page.nextCursor)) {
      throw new Error(
        `its tools/list answered the cursor ${JSON.stringify(cursor ?? null)} with ${page.nextCursor === cursor ? "that same cursor" : `the cursor ${JSON.stringify(page.nextCursor)}, already asked`}, so its listing would never end. The server's author has to fix its paging`,
      );
    }
    refused.push(...page.refused);
    for (const tool of page.tools) {
      const shape = schemaShapeProblem(tool);
      if (shape !== undefined) {
        refused.push({ name: tool.name, kind: "malformed", reason: shape });
        continue;
      }
      if (names.has(tool.name)) {
        refused.push({
          name: tool.name,
          kind: "duplicate",
          reason: "the server lists this name more than once, and a call names a tool by its name alone",
        });
        continue;
      }
      names.add(tool.name);
      tools.push(tool);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length + refused.length < MAX_TOOLS);
  return { tools, refused };
}
