import { LatheError } from "./lathe-error.ts";

/** A settings or trust file is unreadable or malformed; the message names the file, the field and the fix. */
export class ConfigError extends LatheError {
  readonly file: string;

  constructor(file: string, message: string, options?: ErrorOptions) {
    super("config", message, options);
    this.file = file;
  }
}
