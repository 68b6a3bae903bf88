import { LatheError } from "./lathe-error.ts";

/**
 * The process spawner (spawner/) could not start, or stopped, while a command was on its way or
 * running: the command did not run, or its outcome is unknown. Never a reason to run it another
 * way; the next command starts a fresh spawner.
 */
export class SpawnerError extends LatheError {
  constructor(message: string, options?: ErrorOptions) {
    super("spawner", message, options);
  }
}
