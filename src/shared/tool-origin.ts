import { z } from "zod";

/** Where a tool (or a plugin, or a server) comes from: its layer, its kind, and its source's name. */
export const ToolOriginSchema = z.object({
  layer: z.enum(["builtin", "bundled", "global", "project"]),
  kind: z.enum(["builtin", "plugin", "mcp"]),
  name: z.string().optional(),
});
