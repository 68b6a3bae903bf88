import type { ConfinedCommand } from "../sandbox/confine-command.ts";
import { breachMessage } from "../sandbox/mount-guard.ts";

/** A confined process's guard (see mount-guard.ts), as a spawner runner uses it. */
export interface BreachStop {
  /** Why the process was stopped, once a guarded path changed under it. */
  readonly reason: string | undefined;
  /** How to stop the process, now it runs: at once if a path changed already. */
  arm(kill: () => void): void;
}

/**
 * Guard what the sandbox holds for `confined` from now on — before its process starts, so
 * that a change while it starts counts too — and stop the process (with `arm`'s kill, and no
 * grace: each moment it runs on, it may write what it should not) when something changes.
 * `root` shortens the path in the message. Nothing to guard without a confinement.
 */
export function stopOnBreach(confined: ConfinedCommand | undefined, root?: string): BreachStop {
  let reason: string | undefined;
  let kill: (() => void) | undefined;
  confined?.guard((breach) => {
    reason = breachMessage(breach, root);
    kill?.();
  });
  return {
    get reason() {
      return reason;
    },
    arm(stop) {
      kill = stop;
      if (reason !== undefined) stop();
    },
  };
}
