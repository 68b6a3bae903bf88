import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { Truncation } from "../tools/contract.ts";
import { imageExtension, type ToolImage } from "../tools/tool-image.ts";
import { truncateTextField } from "../tools/truncation.ts";
import { counted } from "../tools/counted.ts";

/**
 * What an MCP tool call returns to the model: the text, the structured result when the server
 * sent one, and the images it sent, saved as files (a model that takes images gets them too).
 */
export interface McpToolData {
  content: string;
  structured?: unknown;
  images?: ToolImage[];
}

/** Where each image block of a result was saved. */
type SavedImages = ReadonlyMap<ContentBlock, ToolImage>;

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/**
 * Decode and save every image block of a result with `save` (the session's sidecar folder), so
 * the image outlives the call: the person opens it from the tool card, the model may see it.
 */
export async function saveImages(
  result: CallToolResult,
  save: (bytes: Buffer, extension: string) => Promise<string>,
): Promise<SavedImages> {
  const saved = new Map<ContentBlock, ToolImage>();
  for (const block of result.content ?? []) {
    if (block.type !== "image") continue;
    const bytes = Buffer.from(block.data, "base64");
    saved.set(block, {
      mimeType: block.mimeType,
      path: await save(bytes, imageExtension(block.mimeType)),
      bytes: bytes.length,
    });
  }
  return saved;
}

/** One content block as text: text as is, everything else described in a line. */
function contentText(block: ContentBlock, saved?: SavedImages): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image": {
      const image = saved?.get(block);
      return image
        ? `[image: ${block.mimeType}, ${counted(image.bytes, "byte")}, saved to ${image.path}]`
        : `[image: ${block.mimeType}, ${counted(base64Bytes(block.data), "byte")}]`;
    }
    case "audio":
      return `[audio: ${block.mimeType}, ${counted(base64Bytes(block.data), "byte")}]`;
    case "resource": {
      const r = block.resource;
      const mime = r.mimeType ? `, ${r.mimeType}` : "";
      if ("text" in r) return `[resource ${r.uri}${mime}]\n${r.text}`;
      return `[resource ${r.uri}${mime}, ${counted(base64Bytes(r.blob), "byte")} of binary data]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ""}]`;
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

/** The text of a result: its parts joined by newlines. */
export function resultText(result: CallToolResult, saved?: SavedImages): string {
  return (result.content ?? []).map((block) => contentText(block, saved)).join("\n");
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
 * does not already spell out (so the same data is not paid for twice), and the saved images.
 */
export function toToolData(result: CallToolResult, saved?: SavedImages): McpToolData {
  const text = resultText(result, saved);
  const structured = result.structuredContent;
  const images = saved && saved.size > 0 ? { images: [...saved.values()] } : {};
  if (structured === undefined || textCarries(text, structured)) return { content: text, ...images };
  return { content: text, structured, ...images };
}

/**
 * Cut a result to `maxBytes` like any tool's output. A structured result counts too: when the
 * two do not fit, its JSON (indented) follows the text (under a `[structured result]` line) and is cut with
 * it, so the model gets the head of both and the sidecar all of it.
 */
export function truncateToolData(data: McpToolData, maxBytes: number): Truncation<McpToolData> | undefined {
  if (data.structured === undefined) return truncateTextField(data, "content", maxBytes);
  const json = JSON.stringify(data.structured);
  if (Buffer.byteLength(data.content) + Buffer.byteLength(json) <= maxBytes) return undefined;
  const { structured: _folded, ...rest } = data;
  // Indented, one value a line: the cut falls between lines, so the head shows whole values.
  const folded = {
    ...rest,
    content: `${data.content}\n[structured result]\n${JSON.stringify(data.structured, null, 2)}`,
  };
  return truncateTextField(folded, "content", maxBytes) ?? { data: folded, full: folded.content };
}
