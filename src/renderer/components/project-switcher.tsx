import { folderName, folderParent } from "../state/folder-path.ts";
import { useAppState } from "../state/store-context.tsx";
import { Icon } from "./icons.tsx";

/** The header's project button: the folder's name, where it is, and trust; opens the open-folder dialog. */
export function ProjectSwitcher() {
  const project = useAppState((s) => s.project);
  const open = useAppState((s) => s.setProjectDialog);
  const showTrust = useAppState((s) => s.loadTrustReview);
  if (!project) return <span className="muted">Connecting…</span>;
  const parent = folderParent(project.root);
  return (
    <div className="project-switcher">
      <button
        type="button"
        className="project-button"
        title={project.root}
        aria-label={`Project ${project.root}: open another folder`}
        onClick={() => open(true)}
      >
        <Icon name="folder" />
        <span className="project-name">{folderName(project.root)}</span>
        {parent ? (
          // The folder it sits in, cut from its start when short of room: its nearest folders
          // are the ones that tell two projects apart (the whole path is in the tooltip).
          <span className="project-path">
            <span dir="ltr">{parent}</span>
          </span>
        ) : null}
      </button>
      {project.trusted ? (
        <span className="badge badge-read" title="Its settings, plugins and MCP servers apply in full">
          trusted
        </span>
      ) : (
        <button
          type="button"
          className="badge badge-write badge-button"
          title="Its settings only add deny rules until you trust it. Click to review."
          onClick={() => void showTrust(true)}
        >
          not trusted
        </button>
      )}
    </div>
  );
}
