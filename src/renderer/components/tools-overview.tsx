import { useAppState } from "../state/store-context.tsx";
import { DisabledList } from "./disabled-list.tsx";
import { originLabel, originPhrase } from "./origin-label.ts";

/** Why a tool starts deferred, in a sentence (its badge's tooltip). */
function deferralWhy(by: "config" | "budget" | undefined): string {
  return by === "config"
    ? "Its tool.yaml or MCP server settings say defer: the model starts with its name only."
    : "Without it the tool definitions would take more than a tenth of the model's context (32k tokens assumed when the model's is unknown): the model starts with its name only, and a model with a larger context sees it in full.";
}

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
                      <>
                        <span
                          className="badge badge-running"
                          title="The model sees its name; tool_search loads it"
                        >
                          deferred
                        </span>
                        <div className="muted" title={deferralWhy(tool.deferredBy)}>
                          {tool.deferredBy === "config" ? "as its settings ask" : "to save context"}
                        </div>
                      </>
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
