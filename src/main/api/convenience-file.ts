import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";

/**
 * A small JSON file under `$LATHE_HOME` that only makes the app more convenient (recent folders,
 * the model each folder used). A file that cannot be read, is not JSON or does not fit `schema`
 * is reported to `onProblem` and read as nothing — it never stops the app — and the next write
 * replaces it, atomically and readable by the owner only.
 */
export class ConvenienceFile<T> {
  readonly file: string;
  private readonly schema: z.ZodType<T>;
  private readonly onProblem: (message: string) => void;

  constructor(file: string, schema: z.ZodType<T>, onProblem: (message: string) => void) {
    this.file = file;
    this.schema = schema;
    this.onProblem = onProblem;
  }

  read(): T | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.onProblem(`cannot read ${this.file}: ${(error as Error).message}`);
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this.onProblem(`${this.file} is not valid JSON (${(error as Error).message}); it will be rewritten.`);
      return undefined;
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) return parsed.data;
    this.onProblem(`${this.file} is malformed (${parsed.error.issues[0]?.message}); it will be rewritten.`);
    return undefined;
  }

  write(value: T): void {
    // In Lathe's home, private (0700) as every folder Lathe makes there.
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }
}

/** Where a convenience file's problems go when the host gives no other place: stderr. */
export const reportToStderr = (message: string): void => console.error(`lathe: ${message}`);
