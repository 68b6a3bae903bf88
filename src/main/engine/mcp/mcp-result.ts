import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

/** What an MCP tool call returns to the model: the text, and the structured result when the server sent one. */
export interface McpToolData {
  content: string;
  structured?: unknown;
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/** One content block as text: text as is, everything else described in a line. */
export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource": {
      const r = block.resource;
      const mime = r.mimeType ? `, ${r.mimeType}` : "";
      if ("text" in r) return `[resource ${r.uri}${mime}]\n${r.text}`;
      return `[resource ${r.uri}${mime}, ${base64Bytes(r.blob)} bytes of binary data]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ""}]`;
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

/** The text of a result: its parts joined by newlines. */
export function resultText(result: CallToolResult): string {
  return (result.content ?? []).map(contentText).join("\n");
}

function leaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    if (value !== "") out.push(value);
  } else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) leaves(v, out);
  return out;
}

/** Whether the text already carries every value of the structured result (servers usually send both). */
function textCarries(text: string, structured: unknown): boolean {
  return text !== "" && leaves(structured).every((leaf) => text.includes(leaf));
}

/**
 * The text for the model, plus `structured` when the server sent a structured result the text
 * does not already spell out (so the same data is not paid for twice).
 */
export function toToolData(result: CallToolResult): McpToolData {
  const text = resultText(result);
  const structured = result.structuredContent;
  if (structured === undefined || textCarries(text, structured)) return { content: text };
  return { content: text, structured };
}
