import type { RestorePlan, RewindPlan } from "../../shared/checkpoint-schemas.ts";
import { useRestore } from "../state/restore-context.tsx";
import { changesSomething, conflictsOf, readyToApply, type PathChoice } from "../state/restore-store.ts";
import { Modal } from "./modal.tsx";
import { ErrorLine } from "./error-line.tsx";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { focusViewStart } from "../use-focus-view.ts";
import { useReturnFocus, type FocusOrigin } from "./use-return-focus.ts";

type PlannedPath = RestorePlan["paths"][number];

/** What the preview says will happen to a file: nothing has been done yet. */
const WILL: Record<PlannedPath["action"], { label: string; className: string }> = {
  restore: { label: "will be restored", className: "badge badge-read" },
  recreate: { label: "will be recreated", className: "badge badge-read" },
  delete: { label: "will be removed", className: "badge badge-error" },
  none: { label: "stays as it is", className: "badge badge-muted" },
};

/** What was done to a file, said once the restore or rewind is over. */
const DONE: Record<Exclude<PlannedPath["action"], "none">, { label: string; className: string }> = {
  restore: { label: "restored", className: "badge badge-read" },
  recreate: { label: "recreated", className: "badge badge-read" },
  delete: { label: "removed", className: "badge badge-error" },
};

function isRewind(plan: RestorePlan | RewindPlan): plan is RewindPlan {
  return "messages" in plan;
}

function ConflictChoice({ path, conflict, gone }: { path: string; conflict: string; gone: boolean }) {
  const choice = useRestore((s) => s.choices[path]);
  const choose = useRestore((s) => s.choose);
  const name = `conflict-${path}`;
  const option = (value: PathChoice, label: string) => (
    <label className="conflict-option">
      <input type="radio" name={name} checked={choice === value} onChange={() => choose(path, value)} />
      {label}
    </label>
  );
  return (
    <div className="conflict" role="radiogroup" aria-label={`What to do with ${path}`}>
      <p className="conflict-why">{conflict}</p>
      {/* A file the person deleted has no "version" of theirs to keep: it stays gone or comes back. */}
      {gone ? option("keep", "Leave it deleted") : option("keep", "Keep my version")}
      {gone
        ? option("overwrite", "Bring it back")
        : option("overwrite", "Overwrite it (my version is kept in a checkpoint)")}
    </div>
  );
}

function PlannedPaths({ plan }: { plan: RestorePlan }) {
  const paths = plan.paths.filter((p) => p.action !== "none" || p.conflict !== undefined);
  if (paths.length === 0)
    return <p className="muted">No file needs to change: they are already as they were.</p>;
  return (
    <ul className="restore-paths" aria-label="Files">
      {paths.map((p) => (
        <li
          key={p.path}
          aria-label={p.path}
          className={p.conflict ? "restore-path has-conflict" : "restore-path"}
        >
          <div className="restore-path-head">
            <code>
              {escapeBidiControls(p.path)}
              {p.type === "folder" ? "/" : ""}
            </code>
            {p.unavailable ? (
              <span className="badge badge-muted">cannot be restored</span>
            ) : (
              <span className={WILL[p.action].className}>{WILL[p.action].label}</span>
            )}
            {p.conflict && !p.unavailable ? (
              <span className="badge badge-write">{p.modeOnly ? "mode changed since" : "changed since"}</span>
            ) : null}
          </div>
          {p.unavailable ? <p className="muted restore-note">{p.unavailable}</p> : null}
          {p.conflict && !p.unavailable ? (
            <ConflictChoice path={p.path} conflict={p.conflict} gone={p.action === "recreate"} />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** The files a restore or rewind changed (those it skipped or failed on are said on their own). */
function DonePaths({ plan, left }: { plan: RestorePlan; left: ReadonlySet<string> }) {
  const done = plan.paths.flatMap((p) =>
    p.action === "none" || p.unavailable || left.has(p.path) ? [] : [{ ...p, action: p.action }],
  );
  if (done.length === 0) return null;
  return (
    <ul className="restore-paths" aria-label="Files">
      {done.map((p) => (
        <li key={p.path} aria-label={p.path} className="restore-path">
          <div className="restore-path-head">
            <code>
              {escapeBidiControls(p.path)}
              {p.type === "folder" ? "/" : ""}
            </code>
            <span className={DONE[p.action].className}>{DONE[p.action].label}</span>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * Where the keyboard goes when the dialog closed and the button that opened it has gone: to the
 * card a restore undid (its Restore button is replaced by "restored"), else, after a rewind took
 * the prompt's message away, to the prompt box that holds the prompt again.
 */
function keyboardAfterRestore({ article }: FocusOrigin): void {
  const card = article?.isConnected ? article.querySelector<HTMLElement>("button") : null;
  if (card) card.focus();
  else focusViewStart("chat");
}

/**
 * Restore one call's files, or rewind the session to before a prompt: a preview of every file
 * restored, recreated or deleted (and for a rewind, what the conversation loses), a question for
 * each file the person changed since, then the change and what it did.
 */
export function RestoreDialog() {
  const target = useRestore((s) => s.target);
  const plan = useRestore((s) => s.plan);
  const loading = useRestore((s) => s.loading);
  const applying = useRestore((s) => s.applying);
  const outcome = useRestore((s) => s.outcome);
  const error = useRestore((s) => s.error);
  const choices = useRestore((s) => s.choices);
  const apply = useRestore((s) => s.apply);
  const close = useRestore((s) => s.close);
  const open = useRestore((s) => s.open);
  useReturnFocus(target !== undefined, keyboardAfterRestore);
  if (!target) return null;
  const rewind = target.kind === "rewind";
  const undoes = target.kind === "restore" ? target.undoes : undefined;
  const undoCheckpoint = outcome?.undoCheckpoint ?? null;
  // Focus moves on with the dialog: to Cancel for each new preview, to Done once it is applied.
  const focusKey = `${target.kind === "restore" ? target.checkpointId : target.runId}:${outcome ? "done" : "ask"}`;
  const title = outcome
    ? rewind
      ? "Rewound"
      : "Restored"
    : rewind
      ? "Rewind to before this prompt?"
      : undoes
        ? `Undo the ${undoes}?`
        : `Undo what ${target.tool} changed?`;
  const conflicts = conflictsOf(plan);
  const verb = rewind ? "Rewind" : "Restore";

  return (
    <Modal open focusKey={focusKey} onClose={close} labelledBy="restore-title" className="restore-dialog">
      <div className="approval-body">
        <h2 id="restore-title">{title}</h2>
        {rewind && !outcome ? (
          <blockquote className="restore-prompt">{target.prompt.split("\n", 1)[0]}</blockquote>
        ) : null}
        {loading ? <p className="muted">Working out what would change…</p> : null}
        {plan && !outcome ? (
          <div className="approval-scroll">
            {isRewind(plan) ? (
              <p>
                The conversation goes back to before this prompt: {plan.messages} message
                {plan.messages === 1 ? "" : "s"} in {plan.runs.length} turn{plan.runs.length === 1 ? "" : "s"}{" "}
                will be removed
                {plan.tasks.length > 0
                  ? `, and the changes of ${plan.tasks.length} task session(s) they started will be undone`
                  : ""}
                . Its files will go back too:
              </p>
            ) : (
              <p>The files will go back to how they were before {undoes ? `the ${undoes}` : "the call"}:</p>
            )}
            <PlannedPaths plan={plan} />
            {conflicts.length > 0 ? (
              <p className="notice">
                {conflicts.length === 1 ? "A file was" : `${conflicts.length} files were`} changed after the
                agent touched {conflicts.length === 1 ? "it" : "them"}: say what to do with each before going
                on.
              </p>
            ) : null}
          </div>
        ) : null}
        {outcome ? (
          <div className="approval-scroll" role="status">
            <p>
              {rewind
                ? "The conversation and its files are back to before that prompt."
                : "The files are back."}{" "}
              {undoCheckpoint === null
                ? ""
                : rewind
                  ? "The files it replaced are kept: “Put the files back” returns them (the conversation stays rewound)."
                  : "What was replaced is kept: “Undo this restore” puts it back."}
            </p>
            {plan ? (
              <DonePaths
                plan={plan}
                left={new Set([...outcome.skipped, ...outcome.failed].map((p) => p.path))}
              />
            ) : null}
            {[...outcome.skipped, ...outcome.failed].map((p) => (
              <p key={p.path} className="notice">
                <code>{escapeBidiControls(p.path)}</code>: {p.reason}
              </p>
            ))}
          </div>
        ) : null}
        <ErrorLine message={error} />
        <div className="approval-actions">
          {outcome ? (
            <>
              {undoCheckpoint !== null ? (
                <button
                  type="button"
                  onClick={() =>
                    void open({
                      kind: "restore",
                      sessionId: target.sessionId,
                      checkpointId: undoCheckpoint,
                      tool: target.kind,
                      undoes: target.kind,
                    })
                  }
                >
                  {rewind ? "Put the files back" : "Undo this restore"}
                </button>
              ) : null}
              <button type="button" className="run" data-autofocus onClick={close}>
                Done
              </button>
            </>
          ) : (
            <>
              <button type="button" data-autofocus disabled={applying} onClick={close}>
                Cancel
              </button>
              <button
                type="button"
                className="run"
                disabled={!plan || applying || !readyToApply(plan, choices) || !changesSomething(plan)}
                onClick={() => void apply()}
              >
                {applying ? `${verb === "Rewind" ? "Rewinding" : "Restoring"}…` : verb}
              </button>
            </>
          )}
        </div>
      </div>
    </Modal>
  );
}
