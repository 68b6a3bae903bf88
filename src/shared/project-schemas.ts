// The project switcher's shapes: opening another folder and the recent folders. What the trust
// dialog shows is in trust-review-schema.ts.
import { z } from "zod";

export const ProjectOpenSchema = z.strictObject({
  /** An absolute folder path (a leading ~ is the home folder). */
  path: z.string().trim().min(1, "enter a folder path").max(4096),
});

const RecentProjectSchema = z.strictObject({
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

export type RecentProject = z.output<typeof RecentProjectSchema>;
export type RecentProjects = z.output<typeof RecentProjectsSchema>;
