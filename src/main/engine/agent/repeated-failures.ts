import { LatheError } from "../errors/lathe-error.ts";
import type { Envelope } from "../tools/envelope.ts";

/** From this many identical failures on, the model is told that repeating the call will not help. */
export const WARN_AFTER = 3;
/** At this many, the run stops: the model is going round in circles. */
export const STOP_AT = 5;

/** A run that stopped because the model kept making a call that failed the same way. */
export class RepeatedFailureError extends LatheError {
  declare readonly code: "repeated_failure";

  constructor(message: string) {
    super("repeated_failure", message);
  }
}

/** A value as JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

/**
 * The calls of one run that failed, counted by tool, arguments and error, once per step: a model
 * that makes the same failing call again and again (a local model often does) is told, from the third time, that
 * repeating it will not help; at the fifth the run stops with the reason, rather than spending
 * every step the agent's budget allows on it.
 */
export class RepeatedFailures {
  /** By call and error: how many steps made it, and the last one that did. */
  private readonly counts = new Map<string, { count: number; step: number }>();
  private stop: RepeatedFailureError | undefined;

  /**
   * The envelope the model reads for this call: the same, with advice once it keeps failing.
   * The same call made several times in one `step` counts once: the model had not seen it fail.
   */
  note(toolName: string, input: unknown, envelope: Envelope, step: number): Envelope {
    if (envelope.type !== "error") return envelope;
    const key = `${toolName}\u0000${stable(input)}\u0000${envelope.error_text}`;
    const seen = this.counts.get(key);
    const count = seen === undefined ? 1 : seen.step === step ? seen.count : seen.count + 1;
    this.counts.set(key, { count, step });
    if (count < WARN_AFTER) return envelope;
    if (count >= STOP_AT && this.stop === undefined) {
      this.stop = new RepeatedFailureError(
        `The model made the same ${toolName} call ${count} times and it failed the same way each time ("${envelope.error_text.slice(0, 200)}"), so the run was stopped rather than spend its remaining steps on it. Deal with what the error says, or ask for the work another way.`,
      );
    }
    return {
      ...envelope,
      error_text: `${envelope.error_text} (This exact ${toolName} call has now failed ${count} times in this run with the same error. Repeating it will not help: change the arguments, use another tool, or tell the user what stops you.)`,
    };
  }

  /** Why the run must stop, once a call failed the same way STOP_AT times. */
  get stopReason(): RepeatedFailureError | undefined {
    return this.stop;
  }
}
