import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

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
  readonly file: string;
  private readonly onProblem: (message: string) => void;

  constructor(latheHome: string, onProblem: (message: string) => void = (m) => console.error(`lathe: ${m}`)) {
    this.file = path.join(latheHome, "recent-projects.json");
    this.onProblem = onProblem;
  }

  list(): RecentEntry[] {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.onProblem(`cannot read ${this.file}: ${(error as Error).message}`);
      return [];
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this.onProblem(`${this.file} is not valid JSON (${(error as Error).message}); it will be rewritten.`);
      return [];
    }
    const parsed = RecentFileSchema.safeParse(json);
    if (!parsed.success) {
      this.onProblem(`${this.file} is malformed (${parsed.error.issues[0]?.message}); it will be rewritten.`);
      return [];
    }
    return parsed.data.projects.slice(0, RECENT_LIMIT);
  }

  /** Put a folder (a real path) first; the oldest beyond RECENT_LIMIT drop off. */
  add(root: string, now = Date.now()): RecentEntry[] {
    const projects = [{ root, openedAt: now }, ...this.list().filter((p) => p.root !== root)].slice(
      0,
      RECENT_LIMIT,
    );
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
    return projects;
  }

  /** The list with whether each folder is still there. */
  listWithPresence(): Array<RecentEntry & { exists: boolean }> {
    return this.list().map((entry) => ({ ...entry, exists: existsSync(entry.root) }));
  }
}
