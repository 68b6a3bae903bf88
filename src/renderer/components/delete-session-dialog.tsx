import { useChat } from "../state/chat-context.tsx";
import { useSessions } from "../state/sessions-context.tsx";
import { Modal } from "./modal.tsx";
import { sessionLabel } from "./sessions-sidebar.tsx";
import { ErrorLine } from "./error-line.tsx";

/** "Delete this session?": the session, how many tasks go with it; Esc or Cancel keeps it. Focus starts on Cancel. */
export function DeleteSessionDialog() {
  const target = useSessions((s) => s.confirmingDelete);
  const sessions = useSessions((s) => s.sessions);
  const busy = useSessions((s) => s.busy);
  const error = useSessions((s) => s.actionError);
  const cancel = useSessions((s) => s.cancelDelete);
  const confirm = useSessions((s) => s.confirmDelete);
  const chatSessionId = useChat((s) => s.sessionId);
  const newChat = useChat((s) => s.newChat);
  const tasks = target ? countTasks(sessions, target.id) : 0;
  const onDelete = async () => {
    const deleted = await confirm();
    if (deleted.includes(chatSessionId)) newChat();
  };

  return (
    <Modal
      open={target !== undefined}
      focusKey={target?.id}
      onClose={cancel}
      labelledBy="delete-title"
      className="confirm-dialog"
    >
      {target ? (
        <div className="approval-body">
          <h2 id="delete-title">Delete this session?</h2>
          <p>
            <strong>{sessionLabel(target)}</strong>
            {tasks > 0 ? ` and the ${tasks} task session${tasks === 1 ? "" : "s"} it started` : ""} will be
            deleted with all {tasks > 0 ? "their" : "its"} messages. This cannot be undone. (The audit trail
            keeps its record of the tool calls.)
          </p>
          <ErrorLine message={error} />
          <div className="approval-actions">
            <button type="button" data-autofocus disabled={busy} onClick={cancel}>
              Cancel
            </button>
            <button type="button" className="button-danger" disabled={busy} onClick={() => void onDelete()}>
              {busy ? "Deleting…" : "Delete"}
            </button>
          </div>
        </div>
      ) : null}
    </Modal>
  );
}

/** How many sessions descend from `id` in the list. */
function countTasks(
  sessions: ReadonlyArray<{ id: string; parentId?: string | undefined }>,
  id: string,
): number {
  let count = 0;
  const queue = [id];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const s of sessions) {
      if (s.parentId === parent) {
        count++;
        queue.push(s.id);
      }
    }
  }
  return count;
}
