import { ManifestError } from "../errors/manifest-error.ts";

/**
 * Why a plugin folder cannot load: the file at fault, the field (or line) in it, what is wrong
 * and how to fix it. The message names all four, since it is all a plugin author gets to see.
 */
export class PluginLoadError extends ManifestError {
  readonly file: string;
  /** Where in the file: a field (`field "version"`), a line and column, or "the file". */
  readonly field: string;
  /** What is wrong there, as the message says it. */
  readonly problem: string;
  readonly fix: string;

  constructor(file: string, field: string, problem: string, fix: string, options?: ErrorOptions) {
    super(`${file}: ${field} ${problem}. Fix: ${fix}`, options);
    this.file = file;
    this.field = field;
    this.problem = problem;
    this.fix = fix;
  }
}
