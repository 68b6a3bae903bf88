import type { Engine } from "../engine.ts";
import { SessionError } from "../errors/session-error.ts";
import type { RunEvent } from "./run-events.ts";

/**
 * Re-emit a session's recorded run events, in order, without calling the model or any tool:
 * the same session replays to the same events every time (consecutive text deltas joined).
 * `ownFolderOnly`: the caller named the engine's folder (`--root`), so a conversation of another
 * folder is refused, naming its folder, as resuming it there is.
 */
export function replaySession(
  engine: Engine,
  sessionId: string,
  onEvent: (event: RunEvent) => void,
  options: { ownFolderOnly?: boolean } = {},
): number {
  const store = engine.conversations();
  const conversation = store.get(sessionId);
  if (!conversation) {
    throw new SessionError(
      `There is no conversation "${sessionId}" to replay. lathe run prints the session id of each run.`,
    );
  }
  if (options.ownFolderOnly && conversation.root !== engine.root) {
    throw new SessionError(
      `Session ${sessionId} works in ${conversation.root}, not ${engine.root}. Leave out --root to replay it there.`,
    );
  }
  const events = store.events(sessionId);
  for (const e of events) onEvent(e.data as RunEvent);
  return events.length;
}
