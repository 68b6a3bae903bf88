import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { SessionSummary } from "../../shared/session-schemas.ts";
import { useChat } from "../state/chat-context.tsx";
import { sessionTree, type SessionNode } from "../state/sessions-store.ts";
import { useSessions } from "../state/sessions-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { timeAgo } from "../state/time-ago.ts";
import { Icon } from "./icons.tsx";
import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { focusIsLost } from "../use-focus-view.ts";

/** A model as the list shows it: the model's own name (a GGUF file's name), without the provider. */
function shortModel(spec: string): string {
  const model = spec.includes(":") ? spec.slice(spec.indexOf(":") + 1) : spec;
  return model.split(/[\\/]/).pop() || spec;
}

/** What the list calls a session: its title, or what it is while it has none. */
export function sessionLabel(session: Pick<SessionSummary, "title" | "parentId">): string {
  return escapeBidiControls(session.title) || (session.parentId ? "Task" : "Untitled session");
}

function RenameField({ session }: { session: SessionSummary }) {
  const [value, setValue] = useState(session.titleSource === "custom" ? session.title : "");
  const rename = useSessions((s) => s.rename);
  const cancel = useSessions((s) => s.cancelRename);
  const busy = useSessions((s) => s.busy);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  // The field is disabled while the name is saved, which takes the keyboard from it: a rename that
  // failed gives it back, to correct the name.
  useEffect(() => {
    if (!busy && focusIsLost()) input.current?.focus();
  }, [busy]);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      cancel();
    }
  };
  return (
    <form
      className="session-rename"
      onSubmit={(event) => {
        event.preventDefault();
        void rename(session.id, value);
      }}
    >
      <input
        ref={input}
        aria-label="Session name"
        value={value}
        maxLength={200}
        placeholder={session.titleSource === "custom" ? "" : session.title || "Name this session"}
        disabled={busy}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={(event) => {
          // Leaving the field for its own Save keeps it; leaving it elsewhere cancels.
          if (!event.currentTarget.form?.contains(event.relatedTarget as Node | null)) cancel();
        }}
      />
      <button type="submit" disabled={busy}>
        Save
      </button>
    </form>
  );
}

function SessionRow({ node, depth }: { node: SessionNode; depth: number }) {
  const { session, children } = node;
  const activeId = useChat((s) => s.sessionId);
  const openSession = useChat((s) => s.openSession);
  const setView = useAppState((s) => s.setView);
  const renaming = useSessions((s) => s.renamingId === session.id);
  const startRename = useSessions((s) => s.startRename);
  const askDelete = useSessions((s) => s.askDelete);
  const label = sessionLabel(session);
  const active = session.id === activeId;
  // When the name field goes (saved, or left with Esc), the keyboard comes back to Rename, not
  // to the top of the page; a click elsewhere that ended it keeps the keyboard where it went.
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(renaming);
  useEffect(() => {
    if (wasRenaming.current && !renaming && focusIsLost()) renameButton.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);

  return (
    <li className="session-item" aria-label={label}>
      {renaming ? (
        <RenameField session={session} />
      ) : (
        <div
          className={`session-row${active ? " session-active" : ""}`}
          style={{ paddingLeft: 8 + depth * 14 }}
        >
          <button
            type="button"
            className="session-open"
            aria-current={active ? "true" : undefined}
            aria-label={label}
            aria-describedby={`session-meta-${session.id}`}
            data-session-id={session.id}
            title={label}
            onClick={() => {
              setView("chat");
              void openSession(session.id);
            }}
          >
            {session.parentId ? <Icon name="task" size={13} className="session-task-icon" /> : null}
            <span className="session-title">{label}</span>
            <span className="session-meta" id={`session-meta-${session.id}`}>
              {session.waiting ? (
                <span className="session-running session-waiting">waits for you · </span>
              ) : session.running ? (
                <span className="session-running">running · </span>
              ) : null}
              {timeAgo(session.updatedAt)} · <span title={session.model}>{shortModel(session.model)}</span>
            </span>
          </button>
          <span className="session-actions">
            <button
              ref={renameButton}
              type="button"
              aria-label={`Rename ${label}`}
              title="Rename"
              onClick={() => startRename(session.id)}
            >
              <Icon name="pencil" size={13} />
            </button>
            <button
              type="button"
              aria-label={`Delete ${label}`}
              title="Delete"
              onClick={() => askDelete(session.id)}
            >
              <Icon name="trash" size={13} />
            </button>
          </span>
        </div>
      )}
      {children.length > 0 ? (
        <ul className="session-children" aria-label={`Tasks of ${label}`}>
          {children.map((child) => (
            <SessionRow key={child.session.id} node={child} depth={depth + 1} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/**
 * This folder's chat sessions: a New chat button, a search field, and the sessions newest first
 * (title from the first prompt, time, model), task sessions nested under the run that started them.
 */
export function SessionsSidebar() {
  const sessions = useSessions((s) => s.sessions);
  const query = useSessions((s) => s.query);
  const setQuery = useSessions((s) => s.setQuery);
  const status = useSessions((s) => s.status);
  const error = useSessions((s) => s.error);
  const actionError = useSessions((s) => s.actionError);
  const confirming = useSessions((s) => s.confirmingDelete);
  const newChat = useChat((s) => s.newChat);
  // Only the tab whose run goes on stays with it; one watching another tab's run may leave.
  const held = useChat((s) => s.running && s.ownsRun);
  const setView = useAppState((s) => s.setView);
  const tree = sessionTree(sessions);

  return (
    <section className="sessions" aria-labelledby="sessions-title">
      <div className="sessions-head">
        <h2 id="sessions-title">Sessions</h2>
        <button
          type="button"
          className="sessions-new"
          disabled={held}
          title={
            held ? "This tab's run is going on in this chat: wait for it, or stop it" : "Start a new chat"
          }
          onClick={() => {
            setView("chat");
            newChat();
          }}
        >
          <Icon name="plus" size={14} />
          New chat
        </button>
      </div>
      <label className="sessions-search">
        <Icon name="search" size={14} />
        <input
          type="search"
          aria-label="Search sessions"
          placeholder="Search sessions"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </label>
      {actionError && !confirming ? (
        <p role="alert" className="field-error sessions-error">
          {actionError}
        </p>
      ) : null}
      {status === "failed" ? (
        <p role="alert" className="field-error sessions-error">
          The sessions could not be listed: {error}
        </p>
      ) : null}
      {status === "ready" && sessions.length === 0 ? (
        <p className="muted sessions-empty">
          {query.trim()
            ? `No session mentions “${query.trim()}”.`
            : "No sessions yet. What you send starts one."}
        </p>
      ) : null}
      <ul className="session-list" aria-label="Session list">
        {tree.map((node) => (
          <SessionRow key={node.session.id} node={node} depth={0} />
        ))}
      </ul>
    </section>
  );
}
