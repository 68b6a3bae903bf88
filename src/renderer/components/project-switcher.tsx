import { useAppState } from "../state/store-context.tsx";
import { Icon } from "./icons.tsx";

/** The folder's last path segment, as a short name. */
export function folderName(root: string): string {
  const trimmed = root.replace(/[\\/]+$/, "");
  return trimmed.split(/[\\/]/).pop() || trimmed || "/";
}

/** The header's project button: the folder's name and trust; opens the open-folder dialog. */
export function ProjectSwitcher() {
  const project = useAppState((s) => s.project);
  const open = useAppState((s) => s.setProjectDialog);
  const showTrust = useAppState((s) => s.loadTrustReview);
  if (!project) return <span className="muted">Connecting…</span>;
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
        <span className="project-path">{project.root}</span>
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
