// The dialog before a stdio MCP server starts without the OS sandbox: what the host asks the
// person (the `mcp.unsandboxedRequested` push), how it ends, and the answer.
import { z } from "zod";

export const UnsandboxedMcpRequestSchema = z.strictObject({
  /** The id to answer with `mcp.approveUnsandboxed`; unique per dialog. */
  id: z.string().min(1),
  server: z.string(),
  layer: z.enum(["global", "project"]),
  /** The exact command line it would start with. */
  commandLine: z.string(),
  /** Why the sandbox is not active. */
  reason: z.string(),
});

export const UnsandboxedMcpSettledSchema = z.strictObject({
  id: z.string().min(1),
  approved: z.boolean(),
  /** answered: by the person; closed: the UI went away first. */
  cause: z.enum(["answered", "dismissed", "aborted", "closed"]),
});

export const UnsandboxedMcpAnswerSchema = z.strictObject({
  id: z.string().min(1).max(200),
  /** true: start it unconfined this time (this app run); false: leave it stopped. */
  approve: z.boolean(),
});
