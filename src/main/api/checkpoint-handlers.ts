import { LatheError, type Engine } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import type { ApiHandlers } from "./api-router.ts";

/** What the checkpoint channels run against: a UI connection's current engine, and which sessions have a run going on. */
interface CheckpointTarget {
  engine(): Promise<Engine>;
  /** Whether a chat run is going on in the session (in any window of this process). */
  running(sessionId: string): boolean;
}

type CheckpointChannels =
  | "checkpoints.list"
  | "checkpoints.preview"
  | "checkpoints.restore"
  | "checkpoints.previewRewind"
  | "checkpoints.rewind";

/** The engine's refusals (unknown checkpoint, another folder, a session in use) go to the UI as they are. */
async function refusing<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (LatheError.isInstance(error)) throw new ApiError(error.message);
    throw error;
  }
}

/**
 * The checkpoint channels: list a session's checkpoints, preview and restore one, preview and
 * rewind a session to before a prompt. A conflict is not an error: the outcome says what needs
 * the person, and the UI asks, then calls again with `force` or per-path `choices`.
 */
export function createCheckpointHandlers(target: CheckpointTarget): Pick<ApiHandlers, CheckpointChannels> {
  return {
    "checkpoints.list": ({ sessionId }) =>
      refusing(async () => (await target.engine()).checkpoints.list(sessionId)),
    "checkpoints.preview": ({ sessionId, checkpointId }) =>
      refusing(async () => (await target.engine()).checkpoints.previewRestore(sessionId, checkpointId)),
    "checkpoints.restore": ({ sessionId, checkpointId, force, choices }) =>
      refusing(async () =>
        (await target.engine()).checkpoints.restore(sessionId, checkpointId, {
          ...(force !== undefined ? { force } : {}),
          ...(choices !== undefined ? { choices } : {}),
        }),
      ),
    "checkpoints.previewRewind": ({ sessionId, before }) =>
      refusing(async () => (await target.engine()).checkpoints.previewRewind(sessionId, before)),
    "checkpoints.rewind": ({ sessionId, before, force, choices }) =>
      refusing(async () => {
        if (target.running(sessionId)) {
          throw new ApiError(`Session ${sessionId} has a run going on: stop it, then rewind.`);
        }
        return (await target.engine()).checkpoints.rewind(sessionId, before, {
          ...(force !== undefined ? { force } : {}),
          ...(choices !== undefined ? { choices } : {}),
        });
      }),
  };
}
