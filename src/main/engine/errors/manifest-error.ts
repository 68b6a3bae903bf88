import { LatheError } from "./lathe-error.ts";

/** A tool or agent declaration is malformed (unknown path variable, bad pattern, bad schema). */
export class ManifestError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("manifest", message, options);
  }
}
