import { useState } from "react";
import { useAppState } from "../state/store-context.tsx";
import { timeAgo } from "../state/time-ago.ts";
import { Icon } from "./icons.tsx";
import { Modal } from "./modal.tsx";
import { folderName } from "../state/folder-path.ts";

/**
 * Open another folder: type its path (in the desktop app the system's folder picker fills it) or
 * pick a recent one. A path that is not a folder is refused with the reason, and nothing changes.
 */
export function ProjectDialog() {
  const open = useAppState((s) => s.projectDialogOpen);
  const setOpen = useAppState((s) => s.setProjectDialog);
  const recent = useAppState((s) => s.recentProjects);
  const current = useAppState((s) => s.project?.root);
  const opening = useAppState((s) => s.openingProject);
  const error = useAppState((s) => s.openError);
  const openProject = useAppState((s) => s.openProject);
  const [path, setPath] = useState("");

  const submit = async (folder: string) => {
    if (await openProject(folder)) setPath("");
  };

  return (
    <Modal
      open={open}
      onClose={() => setOpen(false)}
      labelledBy="project-dialog-title"
      className="project-dialog"
    >
      <form
        className="approval-body"
        onSubmit={(event) => {
          event.preventDefault();
          void submit(path);
        }}
      >
        <h2 id="project-dialog-title">Open a folder</h2>
        <p className="muted">
          The agent works in one folder at a time. Sessions, trust and project settings belong to the folder.
        </p>
        <label className="field">
          <span>Folder path</span>
          <input
            data-autofocus
            type="text"
            value={path}
            spellCheck={false}
            placeholder="/home/you/projects/app"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "project-open-error" : undefined}
            onChange={(event) => setPath(event.target.value)}
          />
        </label>
        {window.latheDesktop ? (
          <button
            type="button"
            disabled={opening}
            onClick={() =>
              void window.latheDesktop?.pickFolder().then((picked) => {
                if (picked !== undefined) void submit(picked);
              })
            }
          >
            Choose a folder…
          </button>
        ) : null}
        {error ? (
          <p id="project-open-error" role="alert" className="field-error">
            {error}
          </p>
        ) : null}
        <div className="approval-actions">
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button type="submit" className="run" disabled={opening || path.trim() === ""}>
            {opening ? "Opening…" : "Open"}
          </button>
        </div>
        <h3>Recent</h3>
        {recent.length === 0 ? <p className="muted">No folders opened yet.</p> : null}
        <ul className="recent-list" aria-label="Recent projects">
          {recent.map((project) => (
            <li key={project.root}>
              <button
                type="button"
                className="recent-item"
                disabled={opening || !project.exists || project.root === current}
                onClick={() => void submit(project.root)}
                title={project.exists ? project.root : `${project.root} is gone`}
              >
                <Icon name="folder" />
                <span className="recent-name">{folderName(project.root)}</span>
                <span className="recent-path">{project.root}</span>
                <span className="recent-meta">
                  {project.root === current
                    ? "open now"
                    : !project.exists
                      ? "missing"
                      : `${project.trusted ? "trusted · " : ""}${timeAgo(project.openedAt)}`}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </form>
    </Modal>
  );
}
