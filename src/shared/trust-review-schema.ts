// What trusting a project would turn on, as the trust dialog shows it (the same description
// `lathe trust` prints): its settings' grants, and per plugin and MCP server what it requires,
// whether it skips approval, what it shadows, warnings and load errors.
import { z } from "zod";

/** What an extension may touch, as the trust dialog lists it. */
const ReviewedRequirementsSchema = z.strictObject({
  read: z.array(z.string()),
  write: z.array(z.string()),
  hosts: z.array(z.string()),
  /** Commands with their argument shapes, e.g. `git log --max-count=…`. */
  commands: z.array(z.string()),
});

/** One project plugin or MCP server, shown before the person trusts the folder. */
const ReviewedExtensionSchema = z.strictObject({
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
  /** The project's settings file the grants come from. */
  settingsFile: z.string(),
  /** Allow and ask rules, hooks, extra bash commands, the approval mode (denies apply either way). */
  settings: z.strictObject({
    rules: z.array(z.string()),
    hooks: z.array(z.string()),
    commands: z.array(z.string()),
    approvals: z.string().optional(),
  }),
  /** How many deny rules the settings hold; they apply whether or not the folder is trusted. */
  denyRules: z.number().int().nonnegative(),
  /** The project's agents (`.lathe/agents/*.md`): each one's id, what it replaces, its rules and tools. */
  agents: z.array(z.string()),
  extensions: z.array(ReviewedExtensionSchema),
  /** The settings file could not be read: what is wrong with it. */
  problems: z.array(z.string()),
  /**
   * A digest of what the settings and agents grant, taken before this review was read: trusting
   * with it records what the person saw, and refuses if the folder changed meanwhile.
   */
  grants: z.string().optional(),
});

export type ReviewedExtension = z.output<typeof ReviewedExtensionSchema>;
export type TrustReview = z.output<typeof TrustReviewSchema>;
