import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useChat } from "../state/chat-context.tsx";
import { filterCommands, type PaletteCommand } from "../state/palette-filter.ts";
import { useSessions } from "../state/sessions-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { timeAgo } from "../state/time-ago.ts";
import { VIEWS } from "../views.ts";
import { Modal } from "./modal.tsx";
import { folderName } from "../state/folder-path.ts";
import { sessionLabel } from "./sessions-sidebar.tsx";

/** Every command the palette offers now: chat, project, views and their sections, sessions, recent folders. */
function useCommands(): PaletteCommand[] {
  const setView = useAppState((s) => s.setView);
  const setPalette = useAppState((s) => s.setPalette);
  const setProjectDialog = useAppState((s) => s.setProjectDialog);
  const setPromptFocusPending = useAppState((s) => s.setPromptFocusPending);
  const openProject = useAppState((s) => s.openProject);
  const loadTrustReview = useAppState((s) => s.loadTrustReview);
  const project = useAppState((s) => s.project);
  const recent = useAppState((s) => s.recentProjects);
  // Every session, whatever the sidebar's search field leaves in its list.
  const sessions = useSessions((s) => s.all);
  const newChat = useChat((s) => s.newChat);
  const openSession = useChat((s) => s.openSession);
  const activeSession = useChat((s) => s.sessionId);

  return useMemo(() => {
    const close = () => setPalette(false);
    const commands: PaletteCommand[] = [
      {
        id: "new-chat",
        group: "Chat",
        label: "New chat",
        run: () => (setView("chat"), newChat(), setPromptFocusPending(true)),
      },
      { id: "open-folder", group: "Project", label: "Open folder…", run: () => setProjectDialog(true) },
    ];
    if (project && !project.trusted) {
      commands.push({
        id: "trust",
        group: "Project",
        label: "Review trust for this folder…",
        run: () => (close(), void loadTrustReview(true)),
      });
    }
    for (const view of VIEWS) {
      if (view.sections.length < 2) {
        commands.push({
          id: `view-${view.view}`,
          group: "Go to",
          label: view.label,
          detail: view.hint,
          run: () => setView(view.view),
        });
        continue;
      }
      for (const section of view.sections) {
        commands.push({
          id: `view-${view.view}-${section.id}`,
          group: "Go to",
          label: `${view.label}: ${section.label}`,
          run: () => setView(view.view, section.id),
        });
      }
    }
    for (const session of sessions) {
      if (session.id === activeSession) continue;
      commands.push({
        id: `session-${session.id}`,
        group: session.parentId ? "Task sessions" : "Sessions",
        label: sessionLabel(session),
        detail: timeAgo(session.updatedAt),
        run: () => (setView("chat"), setPromptFocusPending(true), void openSession(session.id)),
      });
    }
    for (const folder of recent) {
      if (folder.root === project?.root || !folder.exists) continue;
      commands.push({
        id: `recent-${folder.root}`,
        group: "Recent folders",
        label: folderName(folder.root),
        detail: folder.root,
        run: () => (close(), void openProject(folder.root)),
      });
    }
    return commands;
  }, [
    setView,
    setPalette,
    setProjectDialog,
    setPromptFocusPending,
    openProject,
    loadTrustReview,
    project,
    recent,
    sessions,
    newChat,
    openSession,
    activeSession,
  ]);
}

function PaletteBody() {
  const setPalette = useAppState((s) => s.setPalette);
  const commands = useCommands();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const shown = filterCommands(commands, query).slice(0, 50);
  const current = Math.min(active, Math.max(0, shown.length - 1));
  const options = useRef<HTMLUListElement>(null);

  // The chosen command stays in sight while ↑↓ move past the list's visible part.
  useEffect(() => {
    options.current?.children[current]?.scrollIntoView({ block: "nearest" });
  }, [current]);

  const run = (command: PaletteCommand | undefined) => {
    if (!command) return;
    setPalette(false);
    command.run();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + shown.length) % Math.max(1, shown.length));
    } else if (event.key === "Enter") {
      event.preventDefault();
      run(shown[current]);
    }
  };

  return (
    <div className="palette-body">
      <h2 id="palette-title" className="visually-hidden">
        Command palette
      </h2>
      <input
        data-autofocus
        className="palette-input"
        role="combobox"
        aria-label="Command"
        aria-expanded="true"
        aria-controls="palette-options"
        aria-activedescendant={shown[current] ? `palette-${current}` : undefined}
        placeholder="Type a command, a session, a view…"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul ref={options} id="palette-options" className="palette-options" role="listbox" aria-label="Commands">
        {shown.map((command, index) => (
          <li
            key={command.id}
            id={`palette-${index}`}
            role="option"
            aria-selected={index === current}
            className="palette-option"
            onMouseEnter={() => setActive(index)}
            onMouseDown={(event) => {
              event.preventDefault();
              run(command);
            }}
          >
            <span className="palette-group">{command.group}</span>
            <span className="palette-label">{command.label}</span>
            {command.detail ? <span className="palette-detail">{command.detail}</span> : null}
          </li>
        ))}
      </ul>
      {shown.length === 0 ? <p className="muted palette-empty">Nothing matches “{query}”.</p> : null}
      <p className="muted palette-hint">↑↓ to choose · Enter to run · Esc to close</p>
    </div>
  );
}

/** Ctrl+K (⌘K): switch session, start a chat, open a folder, go to a view. */
export function CommandPalette() {
  const open = useAppState((s) => s.paletteOpen);
  const setPalette = useAppState((s) => s.setPalette);
  return (
    <Modal open={open} onClose={() => setPalette(false)} labelledBy="palette-title" className="palette">
      <PaletteBody />
    </Modal>
  );
}
