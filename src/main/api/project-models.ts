import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** How many folders keep a remembered model. */
const LIMIT = 500;

const ProjectModelsFileSchema = z.strictObject({
  version: z.literal(1),
  models: z.record(z.string().min(1), z.string().min(1).max(4096)),
});

/**
 * The model a person last picked in each folder, in `$LATHE_HOME/project-models.json`: a new chat
 * there starts with it. A file that cannot be read is reported to `onProblem` and treated as
 * empty (it is a convenience), then rewritten on the next pick.
 */
export class ProjectModels {
  readonly file: string;
  private readonly onProblem: (message: string) => void;

  constructor(latheHome: string, onProblem: (message: string) => void = (m) => console.error(`lathe: ${m}`)) {
    this.file = path.join(latheHome, "project-models.json");
    this.onProblem = onProblem;
  }

  private all(): Record<string, string> {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.onProblem(`cannot read ${this.file}: ${(error as Error).message}`);
      return {};
    }
    try {
      const parsed = ProjectModelsFileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.models;
      this.onProblem(`${this.file} is malformed (${parsed.error.issues[0]?.message}); it will be rewritten.`);
    } catch (error) {
      this.onProblem(`${this.file} is not valid JSON (${(error as Error).message}); it will be rewritten.`);
    }
    return {};
  }

  /** The folder's remembered model (`PROVIDER:MODEL`), if any. */
  get(root: string): string | undefined {
    return this.all()[root];
  }

  /** Remember a folder's model (undefined forgets it); the most recent picks are kept. */
  set(root: string, model: string | undefined): void {
    const rest = Object.entries(this.all()).filter(([folder]) => folder !== root);
    const entries = model === undefined ? rest : [...rest, [root, model] as const];
    const models = Object.fromEntries(entries.slice(-LIMIT));
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ version: 1, models }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
