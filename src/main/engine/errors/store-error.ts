import { LatheError } from "./lathe-error.ts";

/**
 * Lathe's own data (its SQLite database in $LATHE_HOME) cannot be read or written: the disk is
 * full, the file is read-only or damaged. The message names the file and what to do.
 */
export class StoreError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("store", message, options);
  }
}
