import { useEffect, useRef } from "react";
import { useChat } from "../state/chat-context.tsx";
import { useSessions } from "../state/sessions-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { focusIsLost, focusViewStart } from "../use-focus-view.ts";
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
  const view = useAppState((s) => s.view);
  const tasks = target ? countTasks(sessions, target.id) : 0;
  /** The session list's rows as the person saw them when they deleted one, and which one. */
  const deleting = useRef<{ rows: string[]; id: string } | undefined>(undefined);
  const onDelete = async () => {
    if (!target) return;
    deleting.current = { rows: listedRows(), id: target.id };
    const deleted = await confirm();
    if (deleted.length === 0) deleting.current = undefined;
    if (deleted.includes(chatSessionId)) newChat();
  };
  // Once the dialog has closed on a deletion, the keyboard goes to the row that took the deleted
  // one's place (else the one above it), or to the view's start once the list is empty: the
  // Delete button it came from is gone, and it would fall back to the top of the page.
  useEffect(() => {
    const done = deleting.current;
    if (target !== undefined || !done) return;
    deleting.current = undefined;
    if (!focusIsLost()) return;
    const left = new Set(sessions.map((s) => s.id));
    const at = done.rows.indexOf(done.id);
    const next =
      done.rows.slice(at + 1).find((id) => left.has(id)) ??
      done.rows
        .slice(0, Math.max(0, at))
        .reverse()
        .find((id) => left.has(id));
    const row = next === undefined ? null : rowButton(next);
    if (row) row.focus();
    else focusViewStart(view);
  }, [target, sessions, view]);

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

/** The ids of the session list's rows, top to bottom. */
function listedRows(): string[] {
  return [...document.querySelectorAll<HTMLElement>(".session-list [data-session-id]")].flatMap((row) =>
    row.dataset["sessionId"] !== undefined ? [row.dataset["sessionId"]] : [],
  );
}

/** The button that opens session `id` in the session list, when it is listed. */
function rowButton(id: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`.session-list [data-session-id="${CSS.escape(id)}"]`);
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
