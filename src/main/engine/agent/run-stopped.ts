import { LatheError } from "../errors/lathe-error.ts";

/**
 * Why a host stopped a run, when it has a reason worth telling whoever watches it ("the tab that
 * started it was closed"): given as the abort reason of the run's signal, it becomes the
 * `stoppedBecause` of the run's finish event (recorded with the run, shown beside "Stopped").
 */
export class RunStopped extends LatheError {
  declare readonly code: "run_stopped";

  constructor(because: string) {
    super("run_stopped", because);
  }

  static isRunStopped(value: unknown): value is RunStopped {
    return LatheError.isInstance(value) && value.code === "run_stopped";
  }
}

/** The reason a run's signal was aborted with, when it is one to tell (a RunStopped). */
export function stoppedBecause(signal: AbortSignal | undefined): string | undefined {
  return signal?.aborted === true && RunStopped.isRunStopped(signal.reason)
    ? signal.reason.message
    : undefined;
}
