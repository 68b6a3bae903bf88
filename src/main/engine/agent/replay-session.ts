import type { Engine } from "../engine.ts";
import { SessionError } from "../errors/session-error.ts";
import type { RunEvent } from "./run-events.ts";

/**
 * Re-emit a session's recorded run events, in order, without calling the model or any tool:
 * the same session replays to the same events every time (consecutive text deltas joined).
 */
export function replaySession(engine: Engine, sessionId: string, onEvent: (event: RunEvent) => void): number {
  const store = engine.conversations();
  if (!store.get(sessionId)) {
    throw new SessionError(
      `There is no conversation "${sessionId}" to replay. lathe run prints the session id of each run.`,
    );
  }
  const events = store.events(sessionId);
  for (const e of events) onEvent(e.data as RunEvent);
  return events.length;
}
