import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * The most of an MCP tool's description the model is shown (in its definition, in tool_search's
 * answer, in `lathe tools --json`). A server may send megabytes; a useful description fits well
 * inside this. The tool's pin still covers the whole description.
 */
export const MODEL_DESCRIPTION_CHARS = 2048;

/** A description as the model gets it: whole when short, else its head and a mark saying it was cut. */
export function modelDescription(text: string): string {
  if (text.length <= MODEL_DESCRIPTION_CHARS) return text;
  let end = MODEL_DESCRIPTION_CHARS;
  // Never end on the first half of a surrogate pair (one character outside the BMP).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… [description cut: ${(text.length - end).toLocaleString("en-US")} more characters]`;
}

/** The text an MCP tool is described by: its description, else its title, else where it comes from. */
export function describedAs(tool: Tool, server: string): string {
  return (
    tool.description ?? tool.annotations?.title ?? tool.title ?? `${tool.name} (from MCP server ${server})`
  );
}

/** What a person is told about a listed tool whose description the model gets cut, or undefined. */
export function cutDescriptionNote(tool: Tool, server: string): string | undefined {
  const length = describedAs(tool, server).length;
  if (length <= MODEL_DESCRIPTION_CHARS) return undefined;
  return `Tool "${tool.name}": its description has ${length.toLocaleString("en-US")} characters, so the model is shown the first ${MODEL_DESCRIPTION_CHARS.toLocaleString("en-US")} and a mark saying the rest was cut. The server's author should shorten it.`;
}
