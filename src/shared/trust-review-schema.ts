import { z } from "zod";

/** What an extension may touch, as the trust dialog lists it. */
export const ReviewedRequirementsSchema = z.strictObject({
  read: z.array(z.string()),
  write: z.array(z.string()),
  hosts: z.array(z.string()),
  /** Commands with their argument shapes, e.g. `git log --max-count=…`. */
  commands: z.array(z.string()),
});

/** One project plugin or MCP server, shown before the person trusts the folder. */
export const ReviewedExtensionSchema = z.strictObject({
  kind: z.enum(["plugin", "mcp"]),
  name: z.string(),
  toolId: z.string().optional(),
  location: z.string(),
  pinned: z.enum(["match", "changed", "new"]),
  requires: ReviewedRequirementsSchema,
  /** false: its calls run without asking. */
  gated: z.boolean(),
  readOnly: z.boolean().optional(),
  shadows: z.array(z.string()),
  warnings: z.array(z.string()),
  /** Why it would not load at all. */
  error: z.string().optional(),
});

/** What trusting the project turns on: its settings' grants, plugins and MCP servers. */
export const TrustReviewSchema = z.strictObject({
  root: z.string(),
  trusted: z.boolean(),
  settings: z.strictObject({
    rules: z.array(z.string()),
    hooks: z.array(z.string()),
    commands: z.array(z.string()),
    approvals: z.string().optional(),
  }),
  extensions: z.array(ReviewedExtensionSchema),
});

export type ReviewedExtension = z.output<typeof ReviewedExtensionSchema>;
export type TrustReview = z.output<typeof TrustReviewSchema>;
