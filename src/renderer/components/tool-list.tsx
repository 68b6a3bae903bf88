import { useAppState } from "../state/store-context.tsx";
import { originLabel } from "./origin-label.ts";

export function ToolList() {
  const tools = useAppState((s) => s.tools);
  const selectedId = useAppState((s) => s.selectedId);
  const select = useAppState((s) => s.select);

  return (
    <nav className="sidebar" aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
      <ul className="tool-list" aria-label="Tools">
        {tools.map((tool) => (
          <li key={tool.id}>
            <button
              type="button"
              className="tool-item"
              aria-pressed={tool.id === selectedId}
              aria-describedby={`tool-meta-${tool.id}`}
              onClick={() => select(tool.id)}
            >
              <span className="tool-item-head">
                <span className="tool-id">{tool.id}</span>
                <span className={tool.readOnly ? "badge badge-read" : "badge badge-write"}>
                  {tool.readOnly ? "read-only" : "mutating"}
                </span>
              </span>
              <span className="tool-meta" id={`tool-meta-${tool.id}`}>
                <span className="tool-origin">{originLabel(tool.origin)}</span>
                <span className="tool-kind">{tool.kind}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
