import { useAppState } from "../state/store-context.tsx";
import { DisabledList } from "./disabled-list.tsx";
import { originLabel, originPhrase } from "./origin-label.ts";

/**
 * Every bound tool: where the implementation that holds its name comes from and what it hides,
 * whether the model starts with its schema or only its name, and what it may do. Below
 * it, what could not load.
 */
export function ToolsOverview() {
  const tools = useAppState((s) => s.tools);
  const deferred = tools.filter((t) => t.deferred).length;
  const shadowing = tools.filter((t) => t.shadows.length > 0).length;

  return (
    <>
      <section className="panel" aria-labelledby="all-tools-heading">
        <div className="panel-head">
          <h2 id="all-tools-heading">Tools</h2>
          <span className="muted">
            {tools.length} bound · {deferred} deferred · {shadowing} shadowing another
          </span>
        </div>
        <div className="table-scroll">
          <table className="ext-table" aria-label="All tools">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Origin</th>
                <th scope="col">Schema</th>
                <th scope="col">Access</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((tool) => (
                <tr key={tool.id} aria-label={tool.id}>
                  <th scope="row">
                    <code className="tool-id">{tool.id}</code>
                  </th>
                  {/* The bound implementation; what it hides under the same name, below it. */}
                  <td>
                    {originLabel(tool.origin)}
                    {tool.shadows.length > 0 ? (
                      <div className="muted">
                        <span className="badge badge-write">shadows</span>{" "}
                        {tool.shadows.map(originPhrase).join(", ")}
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {tool.deferred ? (
                      <span
                        className="badge badge-running"
                        title="The model sees its name; tool_search loads it"
                      >
                        deferred
                      </span>
                    ) : (
                      <span className="badge badge-read">loaded</span>
                    )}
                  </td>
                  <td className="nowrap">
                    <span className={tool.readOnly ? "badge badge-read" : "badge badge-write"}>
                      {tool.readOnly ? "read-only" : "mutating"}
                    </span>{" "}
                    {tool.gated ? <span className="badge badge-write">gated</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <DisabledList />
    </>
  );
}
