import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ConvenienceFile, reportToStderr } from "./convenience-file.ts";

/** How many folders the list keeps. */
const RECENT_LIMIT = 12;

const RecentFileSchema = z.strictObject({
  version: z.literal(1),
  projects: z.array(z.strictObject({ root: z.string().min(1), openedAt: z.number() })).max(100),
});

interface RecentEntry {
  root: string;
  openedAt: number;
}

/**
 * The folders opened lately, most recent first, in `$LATHE_HOME/recent-projects.json`. A file
 * that cannot be read or does not fit is reported to `onProblem` and treated as empty (the list
 * is a convenience: it never stops a folder from opening), and rewritten on the next open.
 */
export class RecentProjects {
  private readonly store: ConvenienceFile<z.infer<typeof RecentFileSchema>>;

  constructor(latheHome: string, onProblem: (message: string) => void = reportToStderr) {
    this.store = new ConvenienceFile(
      path.join(latheHome, "recent-projects.json"),
      RecentFileSchema,
      onProblem,
    );
  }

  get file(): string {
    return this.store.file;
  }

  list(): RecentEntry[] {
    return (this.store.read()?.projects ?? []).slice(0, RECENT_LIMIT);
  }

  /** Put a folder (a real path) first; the oldest beyond RECENT_LIMIT drop off. */
  add(root: string, now = Date.now()): RecentEntry[] {
    const projects = [{ root, openedAt: now }, ...this.list().filter((p) => p.root !== root)].slice(
      0,
      RECENT_LIMIT,
    );
    this.store.write({ version: 1, projects });
    return projects;
  }

  /** The list with whether each folder is still there. */
  listWithPresence(): Array<RecentEntry & { exists: boolean }> {
    return this.list().map((entry) => ({ ...entry, exists: existsSync(entry.root) }));
  }
}
