import { useEffect, useRef, useState, type ReactNode } from "react";
import type { ToolKind, ToolOrigin } from "../../shared/api-contract.ts";
import { useChat } from "../state/chat-context.tsx";
import { useRestore } from "../state/restore-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { waitsOnPrompt } from "../state/approval-queue.ts";
import { cardSummary, startsOpen } from "../state/tool-summary.ts";
import type { CardStatus, ToolCard as Card } from "../state/transcript.ts";
import { Elapsed, formatDuration } from "./elapsed.tsx";
import { Icon } from "./icons.tsx";
import { savedImageLabel, savedImagesOf } from "../state/tool-images.ts";
import { originLabel } from "./origin-label.ts";
import { OUTCOME_BADGE } from "./outcome-badge.ts";
import { OUTCOME_LABEL } from "./outcome-label.ts";
import { cutNote, hiddenPathsNote } from "../state/result-notes.ts";
import { ResultNote } from "./result-note.tsx";
import { bodySaysCut, ToolCardBody } from "./tool-card-body.tsx";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";

const STATUS_BADGE: Record<CardStatus, string> = {
  running: "badge badge-running",
  ok: OUTCOME_BADGE.output,
  error: OUTCOME_BADGE.error,
  denied: OUTCOME_BADGE.denied,
  stopped: "badge badge-muted",
  "not-run": "badge badge-muted",
};

/**
 * What a call that has not ended waits for, if anything: what the engine says (see
 * ToolCard.waiting), or the person's answer to its question.
 */
type Waiting = NonNullable<Card["waiting"]> | "awaiting-answer";

const WAITING: Record<Waiting, { label: string; badge: string; title: string }> = {
  queued: {
    label: "queued",
    badge: "badge badge-muted",
    title: "Waits for the calls made before it: a change runs only after the ones before it",
  },
  "awaiting-approval": {
    label: "awaiting approval",
    badge: "badge badge-write",
    title: "Waits for your answer (or for the answer to the same call made just before it)",
  },
  "awaiting-answer": {
    label: "awaiting answer",
    badge: "badge badge-write",
    title: "The agent waits for your answer to its question",
  },
};

/**
 * What the status badge says: a call that waits (behind other calls, or for the person's answer)
 * says what for (it is not running yet); a call that never started says why in a word.
 */
function statusLabel(card: Card, waiting: Waiting | undefined): string {
  if (waiting) return WAITING[waiting].label;
  switch (card.status) {
    case "ok":
      return OUTCOME_LABEL.output;
    case "error":
    case "denied":
      return OUTCOME_LABEL[card.status];
    case "not-run":
      return card.argsCutOff === true ? "cut off" : "not run";
    default:
      return card.status;
  }
}

/**
 * One tool call, drawn by its kind (read, edit, search, execute, fetch, think, other): a header
 * that says what it did in one line (click to open or fold it), its status and time (while it
 * waits, queued behind earlier calls, for the person's approval or their answer to its question,
 * it says so, with no timer; once it runs, the time counts from then); the body (a diff, a
 * terminal, a list, JSON); the envelope's error text in red whenever it failed; what a cut result left out and where all of it is (the note the model read, said once: in the body's
 * line when the body draws one); which hidden folders a search left out of its walk; where saved
 * images are kept; any child run it started (`children`); while it runs, the time so far and a
 * Stop that ends this call alone; and once it changed files (it has a checkpoint), a Restore that
 * undoes them after a preview.
 */
export function ToolCard({
  card,
  kind,
  origin,
  children,
}: {
  card: Card;
  kind: ToolKind;
  origin: ToolOrigin | undefined;
  children?: ReactNode;
}) {
  const [open, setOpen] = useState(() => startsOpen(kind, card));
  const runId = useChat((s) => s.runId);
  const stopping = useChat((s) => s.stoppingTools.includes(card.toolCallId));
  const stopTool = useChat((s) => s.stopTool);
  const envelope = card.envelope;
  const summary = cardSummary(card);
  const cut = cutNote(envelope);
  const hidden = hiddenPathsNote(card.toolName, envelope);
  const bodyId = `card-body-${card.toolCallId}`;
  const live = card.status === "running" && card.startedAt !== undefined && runId !== undefined;
  const checkpoint = useChat((s) =>
    s.checkpoints.find((c) => c.kind === "tool" && c.toolCallId === card.toolCallId),
  );
  const sessionId = useChat((s) => s.sessionId);
  const chatRunning = useChat((s) => s.running);
  const openRestore = useRestore((s) => s.open);
  const promptUp = useAppState(
    (s) => card.status === "running" && waitsOnPrompt(s.approvals, card.toolCallId),
  );
  const questionUp = useChat((s) => card.status === "running" && waitsOnPrompt(s.questions, card.toolCallId));
  const waiting: Waiting | undefined =
    card.status !== "running"
      ? undefined
      : promptUp
        ? "awaiting-approval"
        : questionUp
          ? "awaiting-answer"
          : card.waiting;
  // Once it stops waiting, the call starts: its time counts from then (the engine says so live;
  // a redrawn page only sees its prompt go). A question answered is as good as done.
  const [allowedAt, setAllowedAt] = useState<number | undefined>(undefined);
  const wasWaiting = useRef(waiting !== undefined);
  useEffect(() => {
    if (wasWaiting.current && waiting === undefined) setAllowedAt(Date.now());
    wasWaiting.current = waiting !== undefined;
  }, [waiting]);
  const runningSince = allowedAt ?? card.startedAt;

  return (
    <article
      className={`tool-card tool-card-${waiting ?? card.status} tool-kind-${kind}`}
      aria-label={`${card.toolName} call`}
      data-kind={kind}
    >
      <header className="tool-card-head">
        <button
          type="button"
          className="tool-card-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
        >
          <Icon name="chevron" size={12} className="tool-card-chevron" />
          <span className={`tool-kind-icon kind-${kind}`} title={`${kind} tool`}>
            <Icon name={kind} size={14} />
          </span>
          <code className="tool-card-name">{card.toolName}</code>
          {summary ? <span className="tool-card-summary">{summary}</span> : null}
        </button>
        <span className="tool-card-meta">
          <span className="kind-tag" aria-label="Kind">
            {kind}
          </span>
          {origin ? <span className="muted tool-card-origin">{originLabel(origin)}</span> : null}
          <span
            className={waiting ? WAITING[waiting].badge : STATUS_BADGE[card.status]}
            aria-label="Status"
            title={waiting ? WAITING[waiting].title : undefined}
          >
            {statusLabel(card, waiting)}
          </span>
          {envelope ? (
            <span className="muted tool-card-time">{formatDuration(envelope.metadata.duration_ms)}</span>
          ) : card.status === "running" && waiting === undefined && runningSince !== undefined ? (
            <Elapsed since={runningSince} />
          ) : null}
          {checkpoint && checkpoint.restoredBy !== null ? (
            <span className="badge badge-muted" title="Its changes were undone by a restore or rewind">
              restored
            </span>
          ) : checkpoint && !live ? (
            <button
              type="button"
              className="tool-card-restore"
              disabled={chatRunning}
              onClick={() =>
                void openRestore({
                  kind: "restore",
                  sessionId,
                  checkpointId: checkpoint.id,
                  tool: card.toolName,
                })
              }
              aria-label={`Restore the files ${card.toolName} changed`}
              title={`Undo this call's changes: ${checkpoint.files.map((f) => escapeBidiControls(f.path)).join(", ")}`}
            >
              <Icon name="undo" size={12} />
              Restore
            </button>
          ) : null}
          {live ? (
            <button
              type="button"
              className="tool-card-stop"
              disabled={stopping}
              onClick={() => void stopTool(card.toolCallId)}
              aria-label={`Stop ${card.toolName}`}
              title="Stop this call; the run goes on"
            >
              <Icon name="stop" size={12} />
              {stopping ? "Stopping…" : "Stop"}
            </button>
          ) : null}
        </span>
      </header>
      <div id={bodyId} className="tool-card-body" hidden={!open}>
        {open ? <ToolCardBody card={card} /> : null}
      </div>
      {card.approval?.decision === "deny" ? (
        <p className="notice card-line">Not approved: {card.approval.reason}</p>
      ) : null}
      {card.refusal ? <p className="notice card-line">{card.refusal}</p> : null}
      {envelope?.type === "error" ? (
        // A call that never ran did not fail: why it was not run reads as a note, not an error.
        <pre
          className={
            card.status === "not-run"
              ? "notice card-line card-not-run"
              : card.status === "denied"
                ? "error-text card-error card-denied-text"
                : "error-text card-error"
          }
          aria-label={card.status === "not-run" ? "Why it was not run" : "Error text"}
        >
          {envelope.error_text}
        </pre>
      ) : null}
      {cut !== undefined && !(open && bodySaysCut(card)) ? (
        <ResultNote label="Left out" note={cut} path={envelope?.metadata.output_path} className="card-line" />
      ) : null}
      {hidden !== undefined ? <ResultNote label="Hidden paths" note={hidden} className="card-line" /> : null}
      {savedImagesOf(envelope).map((image) => (
        <p key={image.path} className="notice card-line">
          {savedImageLabel(image)} saved in <code>{escapeBidiControls(image.path)}</code>
        </p>
      ))}
      {children}
    </article>
  );
}
