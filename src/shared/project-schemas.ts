// The project switcher's shapes: opening another folder, the recent folders, and what the trust
// dialog shows before a person trusts a folder (what its settings would turn on).
import { z } from "zod";

export const ProjectOpenSchema = z.strictObject({
  /** An absolute folder path (a leading ~ is the home folder). */
  path: z.string().trim().min(1, "enter a folder path").max(4096),
});

export const RecentProjectSchema = z.strictObject({
  root: z.string(),
  /** Milliseconds since the epoch. */
  openedAt: z.number(),
  /** The folder is still there. */
  exists: z.boolean(),
  trusted: z.boolean(),
});

export const RecentProjectsSchema = z.strictObject({
  /** Most recently opened first; the open one included. */
  projects: z.array(RecentProjectSchema),
});

/** What a tool asks for, as lines a person reads: files it reads and writes, hosts, commands. */
export const RequirementSummarySchema = z.strictObject({
  read: z.array(z.string()),
  write: z.array(z.string()),
  hosts: z.array(z.string()),
  commands: z.array(z.string()),
  capabilities: z.array(z.string()),
});

/** A plugin the folder brings, as the trust dialog lists it. */
export const TrustPluginSchema = z.strictObject({
  name: z.string(),
  dir: z.string(),
  /** Approved as it is now, new since the trust, or changed since. */
  pinned: z.enum(["match", "new", "changed"]),
  /** What its tool.yaml asks for (files, hosts, commands); absent when the manifest cannot be read. */
  requires: RequirementSummarySchema.optional(),
  /** Why its manifest could not be read. */
  problem: z.string().optional(),
});

/** Everything a folder's settings would turn on once trusted, for the trust dialog. */
export const TrustPromptSchema = z.strictObject({
  root: z.string(),
  trusted: z.boolean(),
  settingsFile: z.string(),
  /** Allow and ask rules (deny rules apply whether or not it is trusted). */
  rules: z.array(z.strictObject({ permission: z.string(), pattern: z.string(), action: z.string() })),
  denyRules: z.number().int().nonnegative(),
  hooks: z.array(z.strictObject({ command: z.string(), tools: z.array(z.string()).optional() })),
  /** Extra commands bash may run. */
  commands: z.array(z.string()),
  mcpServers: z.array(z.strictObject({ name: z.string(), commandLine: z.string() })),
  plugins: z.array(TrustPluginSchema),
  approvalsMode: z.string().optional(),
  /** The settings file could not be read: what is wrong with it. */
  problems: z.array(z.string()),
});

export type ProjectOpen = z.output<typeof ProjectOpenSchema>;
export type RecentProject = z.output<typeof RecentProjectSchema>;
export type RecentProjects = z.output<typeof RecentProjectsSchema>;
export type RequirementSummary = z.output<typeof RequirementSummarySchema>;
export type TrustPrompt = z.output<typeof TrustPromptSchema>;
