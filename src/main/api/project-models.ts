import path from "node:path";
import { z } from "zod";
import { ConvenienceFile, reportToStderr } from "./convenience-file.ts";

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
  private readonly store: ConvenienceFile<z.infer<typeof ProjectModelsFileSchema>>;

  constructor(latheHome: string, onProblem: (message: string) => void = reportToStderr) {
    this.store = new ConvenienceFile(
      path.join(latheHome, "project-models.json"),
      ProjectModelsFileSchema,
      onProblem,
    );
  }

  private all(): Record<string, string> {
    return this.store.read()?.models ?? {};
  }

  /** The folder's remembered model (`PROVIDER:MODEL`), if any. */
  get(root: string): string | undefined {
    return this.all()[root];
  }

  /** Remember a folder's model (undefined forgets it); the most recent picks are kept. */
  set(root: string, model: string | undefined): void {
    const rest = Object.entries(this.all()).filter(([folder]) => folder !== root);
    const entries = model === undefined ? rest : [...rest, [root, model] as const];
    this.store.write({ version: 1, models: Object.fromEntries(entries.slice(-LIMIT)) });
  }
}
