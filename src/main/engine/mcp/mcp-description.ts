import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * The most of an MCP tool's description the model is shown (in its definition, in tool_search's
 * answer, in `lathe tools --json`). A server may send megabytes; a useful description fits well
 * inside this. The tool's pin still covers the whole description.
 */
export const MODEL_DESCRIPTION_CHARS = 2048;

/** The most of one `description` inside a tool's input schema the model is shown. */
export const SCHEMA_DESCRIPTION_CHARS = 1024;

/** A description as the model gets it: whole when short, else its head and a mark saying it was cut. */
export function modelDescription(text: string, limit = MODEL_DESCRIPTION_CHARS): string {
  if (text.length <= limit) return text;
  let end = limit;
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

/**
 * A tool's input schema as the model gets it: every `description` in it (of the arguments, at any
 * depth) whole when short, else cut as a tool's own is, at SCHEMA_DESCRIPTION_CHARS. A server can
 * put megabytes there as easily as in the tool's description. The original is not changed
 * (the tool's pin covers it whole).
 */
export function modelSchema<T>(schema: T): T {
  return cutSchemaDescriptions(schema, () => undefined);
}

function cutSchemaDescriptions<T>(value: T, onCut: (length: number) => void): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cutSchemaDescriptions(item, onCut)) as T;
  if (typeof value !== "object" || value === null) return value;
  // Built from entries, not by assignment: a key "__proto__" (a property of that name) stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key === "description" && typeof item === "string" && item.length > SCHEMA_DESCRIPTION_CHARS) {
        onCut(item.length);
        return [key, modelDescription(item, SCHEMA_DESCRIPTION_CHARS)];
      }
      return [key, cutSchemaDescriptions(item, onCut)];
    }),
  ) as T;
}

/** What a person is told about a listed tool whose description (or an argument's) the model gets cut, or undefined. */
export function cutDescriptionNote(tool: Tool, server: string): string | undefined {
  const notes: string[] = [];
  const length = describedAs(tool, server).length;
  if (length > MODEL_DESCRIPTION_CHARS) {
    notes.push(
      `its description has ${length.toLocaleString("en-US")} characters, so the model is shown the first ${MODEL_DESCRIPTION_CHARS.toLocaleString("en-US")} and a mark saying the rest was cut`,
    );
  }
  const cut: number[] = [];
  cutSchemaDescriptions(tool.inputSchema, (n) => cut.push(n));
  if (cut.length > 0) {
    const longest = cut.reduce((a, b) => Math.max(a, b), 0);
    notes.push(
      `${cut.length === 1 ? "one description" : `${cut.length.toLocaleString("en-US")} descriptions`} in its input schema ${cut.length === 1 ? "has" : "have up to"} ${longest.toLocaleString("en-US")} characters, so the model is shown the first ${SCHEMA_DESCRIPTION_CHARS.toLocaleString("en-US")} of ${cut.length === 1 ? "it" : "each"}`,
    );
  }
  if (notes.length === 0) return undefined;
  return `Tool "${tool.name}": ${notes.join("; and ")}. The server's author should shorten ${notes.length > 1 || cut.length > 1 ? "them" : "it"}.`;
}
