import { createHash } from "node:crypto";
import { TOOL_ID } from "../tools/tool-id.ts";

const MAX_ID = 64;

/** Map any MCP name onto the registry's id alphabet: letters, digits, `_`, `-`, starting with a letter. */
export function sanitizeToolId(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (!/^[A-Za-z]/.test(id)) id = `t_${id}`;
  if (id.length <= MAX_ID) return id;
  const suffix = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${id.slice(0, MAX_ID - suffix.length - 1)}_${suffix}`;
}

/** The prefixed id an MCP tool takes when its flat name is already bound: `mcp__<server>__<tool>`. */
export function prefixedToolId(server: string, tool: string): string {
  return sanitizeToolId(`mcp__${server}__${tool}`);
}

/**
 * The id an MCP tool is bound under: its own name when that is free (sanitised to the registry's
 * rules), else `mcp__<server>__<tool>`, else that with a short hash so it is unique.
 */
export function chooseToolId(server: string, tool: string, isTaken: (id: string) => boolean): string {
  const flat = sanitizeToolId(tool);
  if (!isTaken(flat)) return flat;
  const prefixed = prefixedToolId(server, tool);
  if (!isTaken(prefixed)) return prefixed;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${prefixed.slice(0, MAX_ID - hash.length - 1)}_${hash}`;
}

export function isValidToolId(id: string): boolean {
  return TOOL_ID.test(id);
}
