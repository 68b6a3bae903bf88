import { useMemo, useState, type KeyboardEvent } from "react";
import type { ApprovalAnswer } from "../../shared/api-contract.ts";
import { promptsFor } from "../state/approval-queue.ts";
import { useChat, useChatStore } from "../state/chat-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { escapeBidiControlsDeep, hasBidiControlDeep } from "../../shared/bidi-controls.ts";
import { ApprovalArguments } from "./approval-arguments.tsx";
import { ReorderingWarning } from "./reordering-warning.tsx";
import { Modal } from "./modal.tsx";
import { ErrorLine } from "./error-line.tsx";

const KEYS: Record<string, ApprovalAnswer> = { y: "once", a: "always", n: "reject" };

/**
 * The approval prompt: a modal dialog for the first waiting request of the chat on screen (a
 * chat run's prompts show in every tab that has its session open) or of this page's own calls, showing the exact tool, its
 * origin, why it needs approval and its full arguments. Keys: y allows once, a allows for the
 * session, n or Esc (or closing the dialog any other way) rejects; focus starts on "Reject", so a
 * stray Enter never allows anything. A chat run's prompt also offers "Stop run": the dialog is
 * modal, so the run's own Stop is out of reach while it is open; stopping the run rejects the
 * call that waits (the host settles an aborted call's prompt as a rejection) and every call
 * queued behind it.
 */
export function ApprovalDialog() {
  const sessionId = useChat((s) => s.sessionId);
  const approvals = useAppState((s) => s.approvals);
  const shown = useMemo(() => promptsFor(approvals, sessionId), [approvals, sessionId]);
  const request = shown[0];
  // What the dialog shows: every reordering character as its escape (the answer uses the request).
  const view = useMemo(() => (request ? escapeBidiControlsDeep(request) : undefined), [request]);
  const reorders = useMemo(() => (request ? hasBidiControlDeep(request) : false), [request]);
  const waiting = shown.length;
  const answering = useAppState((s) => s.answering);
  const respond = useAppState((s) => s.respond);
  const answer = (value: ApprovalAnswer) => {
    if (!answering && request) void respond(request.id, value);
  };
  const chat = useChatStore();
  const stop = useChat((s) => s.stop);
  const stopping = useChat((s) => s.stopping);
  // The run of the chat on screen asks (for one of its calls, or its subagents'), and goes on here.
  const runGoesOn = useChat((s) => s.runId !== undefined);
  const canStopRun = runGoesOn && request !== undefined && request.runSessionId === sessionId;
  // Why Stop run failed, for the prompt it was pressed on (the run's Stop line is behind the dialog).
  const [stopFailure, setStopFailure] = useState<{ id: string; message: string }>();
  const stopRun = async () => {
    if (!request || stopping) return;
    const id = request.id;
    await stop();
    const failed = chat.getState().sendError;
    if (failed !== undefined) setStopFailure({ id, message: failed });
  };
  // y: allow once, a: allow for this session, n: reject (no modifier, not held down).
  const onKey = (event: KeyboardEvent<HTMLDialogElement>): boolean => {
    const key = KEYS[event.key.toLowerCase()];
    if (!key || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return false;
    event.preventDefault();
    answer(key);
    return true;
  };

  return (
    // Esc, or the dialog closing any other way, rejects.
    <Modal
      open={request !== undefined}
      focusKey={request?.id}
      onClose={() => answer("reject")}
      onKey={onKey}
      labelledBy="approval-title"
      describedBy="approval-reasons"
    >
      {request && view ? (
        <form method="dialog" className="approval-body" onSubmit={(event) => event.preventDefault()}>
          <h2 id="approval-title">
            Allow <code>{view.toolId}</code> to run?
          </h2>
          {waiting > 1 ? (
            <p className="muted">
              {waiting - 1} more {waiting === 2 ? "request waits" : "requests wait"} after this one.
            </p>
          ) : null}
          <dl className="approval-facts">
            <div>
              <dt>Tool</dt>
              <dd>
                <code>{view.toolId}</code>
              </dd>
            </div>
            <div>
              <dt>Origin</dt>
              <dd aria-label="Origin">
                <span>layer {view.origin.layer}</span> · <span>kind {view.origin.kind}</span>
                {view.origin.name ? (
                  <>
                    {" "}
                    · <span>name {view.origin.name}</span>
                  </>
                ) : null}
              </dd>
            </div>
          </dl>
          <div className="approval-scroll">
            {reorders ? <ReorderingWarning what="This call" /> : null}
            <ApprovalArguments args={request.args} />
            <h3>Why Lathe asks</h3>
            <ul id="approval-reasons" className="approval-reasons">
              {view.reasons.map((reason, index) => (
                <li key={index}>{reason}</li>
              ))}
            </ul>
            <h3 id="approval-key-label">Approval key</h3>
            <p className="approval-key" aria-labelledby="approval-key-label">
              <code>{view.approvalKey}</code>
            </p>
          </div>
          <ErrorLine message={stopFailure?.id === request.id ? stopFailure.message : undefined} />
          <div className="approval-actions">
            {canStopRun ? (
              <button
                type="button"
                className="button-stop-run"
                disabled={stopping}
                onClick={() => void stopRun()}
              >
                {stopping ? "Stopping…" : "Stop run"}
              </button>
            ) : null}
            <button
              type="button"
              data-autofocus
              className="button-reject"
              aria-keyshortcuts="N"
              disabled={answering}
              onClick={() => answer("reject")}
            >
              Reject
            </button>
            <button type="button" aria-keyshortcuts="A" disabled={answering} onClick={() => answer("always")}>
              Allow for this session
            </button>
            <button
              type="button"
              className="run"
              aria-keyshortcuts="Y"
              disabled={answering}
              onClick={() => answer("once")}
            >
              Allow once
            </button>
          </div>
          <p className="muted approval-hint">
            Keys: <kbd>y</kbd> allows once, <kbd>a</kbd> for this session, <kbd>n</kbd> or <kbd>Esc</kbd>{" "}
            rejects.
            {canStopRun ? " “Stop run” rejects this call and ends the run, the calls after it too." : ""}{" "}
            “Allow for this session” also allows later <code>{view.toolId}</code> calls with the same approval
            key{" "}
            {request.runSessionId !== undefined
              ? "in this chat, its later runs too, from any tab (Settings › Permissions revokes it)."
              : "until this window closes."}
          </p>
        </form>
      ) : null}
    </Modal>
  );
}
