import type { SessionSummary } from "../../shared/session-schemas.ts";
import { LatheError, type Engine, type SessionSummary as StoredSummary } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";
import { ApiError } from "./api-error.ts";

/** What the session channels work on: the UI's current engine, and the sessions with a run going on. */
interface SessionTarget {
  engine(): Promise<Engine>;
  /** Sessions with a run going on, across every UI of the host. */
  busy: ReadonlySet<string>;
  /** Whether a session's runs wait for the person (an approval or a question), in any UI. */
  waiting(sessionId: string): boolean;
  /** Tell every UI its session list changed (another tab shows the rename, or leaves a deleted session). */
  changed?(deleted?: string[]): void;
}

type SessionChannels = "sessions.list" | "sessions.rename" | "sessions.delete";

function shown(summary: StoredSummary, target: SessionTarget): SessionSummary {
  const { parentId, ...rest } = summary;
  return {
    ...rest,
    ...(parentId !== undefined ? { parentId } : {}),
    running: target.busy.has(summary.id),
    waiting: target.waiting(summary.id),
  };
}

/** The recorded session of this folder, or an ApiError saying there is none. */
function ownSession(engine: Engine, sessionId: string): StoredSummary {
  const found = engine.sessionCatalog().get(sessionId);
  if (!found || found.root !== engine.root) {
    throw new ApiError(
      `There is no session "${sessionId}" in ${engine.root}: it was deleted, or it belongs to another folder. Refresh the session list.`,
    );
  }
  return found;
}

/** The session list's channels: list and search a folder's sessions, rename one, delete one with its tasks. */
export function createSessionHandlers(target: SessionTarget): Pick<ApiHandlers, SessionChannels> {
  return {
    "sessions.list": async (request) => {
      const engine = await target.engine();
      const query = request?.query;
      const sessions = engine
        .sessionCatalog()
        .list({ root: engine.root, ...(query !== undefined ? { query } : {}) });
      return { root: engine.root, sessions: sessions.map((s) => shown(s, target)) };
    },
    "sessions.rename": async ({ sessionId, title }) => {
      const engine = await target.engine();
      ownSession(engine, sessionId);
      engine.sessionCatalog().rename(sessionId, title);
      target.changed?.();
      return shown(ownSession(engine, sessionId), target);
    },
    "sessions.delete": async ({ sessionId }) => {
      const engine = await target.engine();
      ownSession(engine, sessionId);
      const running = engine
        .sessionCatalog()
        .family(sessionId)
        .find((id) => target.busy.has(id));
      if (running !== undefined) {
        throw new ApiError(
          `A run is going on in ${running === sessionId ? "this session" : `its task ${running}`}: stop it, then delete the session.`,
        );
      }
      try {
        const deleted = await engine.deleteSession(sessionId);
        target.changed?.(deleted);
        return { deleted };
      } catch (error) {
        if (LatheError.isInstance(error)) throw new ApiError(error.message, { cause: error });
        throw error;
      }
    },
  };
}
