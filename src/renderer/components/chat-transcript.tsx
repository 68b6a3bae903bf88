import { memo, useEffect, useMemo, useRef } from "react";
import type { Turn } from "../state/transcript.ts";
import { useChat } from "../state/chat-context.tsx";
import { CONTINUE_PROMPT } from "../state/chat-store.ts";
import { ModelWaiting } from "./model-waiting.tsx";
import { useAppState } from "../state/store-context.tsx";
import { useRestore } from "../state/restore-context.tsx";
import { Icon } from "./icons.tsx";
import { TranscriptItems } from "./transcript-items.tsx";
import { DRAWN_ITEMS, transcriptWindow } from "../state/transcript-window.ts";

const count = new Intl.NumberFormat("en");

/** What a long conversation leaves undrawn at its start, with the button that draws more of it. */
function EarlierItems({ hidden }: { hidden: number }) {
  const showEarlier = useChat((s) => s.showEarlier);
  return (
    <p className="muted transcript-earlier" role="note" aria-label="Earlier items not shown">
      {`${count.format(hidden)} earlier item${hidden === 1 ? "" : "s"} of this conversation (texts and tool calls) not drawn, to keep the chat quick. `}
      <button type="button" className="link-button" onClick={showEarlier}>
        Show {count.format(Math.min(DRAWN_ITEMS, hidden))} earlier
      </button>
    </p>
  );
}

const ENDING: Record<Exclude<Turn["status"], "running" | "completed">, string> = {
  "max-rounds": "Stopped: the agent used all the rounds its budget allows.",
  aborted: "Stopped.",
  failed: "The run failed.",
  interrupted: "This run was interrupted before it finished.",
};

/** How a turn that did not complete ended, with the reason the host gave for stopping it. */
function ending(status: keyof typeof ENDING, stoppedBecause: string | undefined): string {
  return status === "aborted" && stoppedBecause !== undefined
    ? `Stopped: ${stoppedBecause}.`
    : ENDING[status];
}

/** The person's prompt, with the way back to before it: files and conversation, after a preview. */
function UserPrompt({ turn }: { turn: Turn }) {
  const sessionId = useChat((s) => s.sessionId);
  const running = useChat((s) => s.running);
  const openRestore = useRestore((s) => s.open);
  const runId = turn.runId;
  return (
    <div className="user-prompt-row">
      {runId !== undefined && turn.status !== "running" ? (
        <button
          type="button"
          className="rewind-button"
          disabled={running}
          aria-label="Rewind to before this prompt"
          title="Rewind the conversation and its files to before this prompt"
          onClick={() => void openRestore({ kind: "rewind", sessionId, runId, prompt: turn.prompt })}
        >
          <Icon name="undo" size={13} />
          Rewind
        </button>
      ) : null}
      <div className="user-prompt" aria-label="Your prompt">
        {turn.prompt}
      </div>
    </div>
  );
}

/**
 * The way on after the model's connection dropped mid-answer: nothing in the conversation needs
 * fixing, so one press continues it (the model reads its answer so far, marked as cut off).
 */
function ContinueAfterDrop({ cause }: { cause: "connection-dropped" | "model-stalled" }) {
  const running = useChat((s) => s.running);
  const send = useChat((s) => s.send);
  return (
    <div className="turn-continue" role="group" aria-label="Continue the conversation">
      <p className="muted">
        {cause === "connection-dropped"
          ? "What the model wrote before the connection dropped is kept, marked as cut off. Once its server answers again, continue where it stopped:"
          : "What the model wrote before it went silent is kept, marked as cut off. Once it answers again (or with a longer timeout), continue where it stopped:"}
      </p>
      <button
        type="button"
        className="run"
        disabled={running}
        title={`Sends "${CONTINUE_PROMPT}" in this chat`}
        onClick={() => void send(CONTINUE_PROMPT)}
      >
        Continue
      </button>
    </div>
  );
}

/** One turn; unchanged turns keep their identity in the store, so only the one streaming re-renders. */
const TurnView = memo(function TurnView({ turn, last }: { turn: Turn; last: boolean }) {
  return (
    <li className="turn" aria-busy={turn.status === "running"}>
      {turn.prompt ? <UserPrompt turn={turn} /> : null}
      <div className="assistant" aria-label="Agent">
        <TranscriptItems items={turn.items} />
        {turn.status === "running" && turn.waiting ? (
          <ModelWaiting key={`${turn.waiting.kind}-${turn.waiting.elapsedMs}`} wait={turn.waiting} />
        ) : turn.status === "running" && turn.items.length === 0 ? (
          <p className="muted">Waiting for the model…</p>
        ) : null}
        {turn.error ? (
          <p role="alert" className="error-text card-error">
            {turn.error}
          </p>
        ) : null}
        {turn.status !== "running" &&
        turn.status !== "completed" &&
        !(turn.status === "failed" && turn.error) ? (
          <p className="muted turn-ending">{ending(turn.status, turn.stoppedBecause)}</p>
        ) : null}
        {last && turn.status === "failed" && turn.errorCause !== undefined ? (
          <ContinueAfterDrop cause={turn.errorCause} />
        ) : null}
      </div>
    </li>
  );
});

/** A new chat: what it is for, and the keys. */
function EmptyChat() {
  const root = useAppState((s) => s.project?.root);
  return (
    <div className="chat-empty-state">
      <span className="brand-mark" aria-hidden="true" />
      <h3>What should the agent do?</h3>
      <p>
        It works in <code>{root ?? "this folder"}</code> with audited tools, and asks before it changes
        anything.
      </p>
      <p className="muted">
        <kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>Esc</kbd> stops ·{" "}
        <kbd>Ctrl</kbd>+<kbd>K</kbd> commands
      </p>
    </div>
  );
}

/** The session's turns, newest last; it follows the stream while the reader is at the bottom. */
export function ChatTranscript() {
  const turns = useChat((s) => s.turns);
  const hiddenItems = useChat((s) => s.hiddenItems);
  const drawn = useMemo(() => transcriptWindow(turns, hiddenItems), [turns, hiddenItems]);
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const element = list.current?.parentElement;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [turns]);

  return (
    <div
      className="transcript-scroll"
      onScroll={(event) => {
        const el = event.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {turns.length === 0 ? <EmptyChat /> : null}
      {drawn.hidden > 0 ? <EarlierItems hidden={drawn.hidden} /> : null}
      <ol ref={list} className="transcript" aria-label="Conversation">
        {drawn.turns.map(({ turn, index }) => (
          <TurnView key={index} turn={turn} last={index === turns.length - 1} />
        ))}
      </ol>
    </div>
  );
}
