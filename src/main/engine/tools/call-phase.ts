/**
 * Where a call stands before its envelope, as a person watching it needs to know:
 * - `queued`: the scheduler holds it behind calls issued before it (a write waits for the one
 *   ahead of it, even while that one waits for its approval);
 * - `awaiting-approval`: its approval prompt waits for a person, or an identical call's prompt
 *   does (two calls with one approval key ask once);
 * - `running`: it was let through and runs.
 * A call reports a phase only when it waited: one that ran at once reports none (its start is
 * the `running` a host already shows), so a headless run is not flooded with them.
 */
export type CallPhase = "queued" | "awaiting-approval" | "running";

/** Called as a call moves from one phase to the next (never twice in a row with one phase). */
export type CallPhaseListener = (phase: CallPhase) => void;

/** A CallPhaseListener that can be closed: the call has ended, and says no phase after that. */
export interface PhaseReporter extends CallPhaseListener {
  close(): void;
}

/**
 * A listener that passes each phase on once, skipping a repeat, and reports the first phase
 * only when it is not `running` (see CallPhase); a listener that throws is `onError`'s. Once
 * closed it passes nothing on: what is said of a call after its result would be read as the
 * call running again.
 */
export function phaseReporter(
  listeners: readonly CallPhaseListener[],
  onError: (error: unknown) => void,
): PhaseReporter {
  let last: CallPhase | undefined;
  let closed = false;
  const report = (phase: CallPhase): void => {
    if (closed || phase === last || (last === undefined && phase === "running")) return;
    last = phase;
    for (const listener of listeners) {
      try {
        listener(phase);
      } catch (err) {
        onError(err);
      }
    }
  };
  return Object.assign(report, { close: () => void (closed = true) });
}
