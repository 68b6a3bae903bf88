import type { ToolInfo } from "../../shared/api-contract.ts";
import type { PluginInfo } from "../../shared/extensions-schemas.ts";
import { useExtensions } from "../state/extensions-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { PluginLogViewer } from "./plugin-log-viewer.tsx";
import { ErrorLine } from "./error-line.tsx";
import { originPhrase } from "./origin-label.ts";

function stateBadge(plugin: PluginInfo): { label: string; className: string } {
  if (plugin.state === "loaded") return { label: "loaded", className: "badge badge-read" };
  if (plugin.disabledByUser) return { label: "disabled by you", className: "badge badge-muted" };
  if (plugin.approval === "untrusted") return { label: "folder not trusted", className: "badge badge-write" };
  if (plugin.approval === "changed")
    return { label: "changed since trusted", className: "badge badge-write" };
  if (plugin.approval === "new") return { label: "new since trusted", className: "badge badge-write" };
  return { label: "disabled", className: "badge badge-error" };
}

function PluginActions({ plugin, trusted }: { plugin: PluginInfo; trusted: boolean }) {
  const pending = useExtensions((s) => s.pending);
  const setEnabled = useExtensions((s) => s.setPluginEnabled);
  const approve = useExtensions((s) => s.approvePlugin);
  const openLog = useExtensions((s) => s.openPluginLog);
  const who = `${plugin.name} (${plugin.layer})`;
  const needsApproval = trusted && (plugin.approval === "new" || plugin.approval === "changed");

  return (
    <div className="row-actions">
      {needsApproval && plugin.hash && !plugin.disabledByUser ? (
        <button
          type="button"
          className="run"
          disabled={pending !== undefined}
          aria-label={`Approve ${who}`}
          title={`Approve ${plugin.dir} as it is now`}
          onClick={() => void approve(plugin.name, plugin.hash as string)}
        >
          Approve
        </button>
      ) : null}
      {plugin.disabledByUser ? (
        <button
          type="button"
          disabled={pending !== undefined}
          aria-label={`Enable ${who}`}
          onClick={() => void setEnabled(plugin.layer, plugin.name, true)}
        >
          Enable
        </button>
      ) : plugin.approval === "untrusted" ? null : (
        <button
          type="button"
          disabled={pending !== undefined}
          aria-label={`Disable ${who}`}
          onClick={() => void setEnabled(plugin.layer, plugin.name, false)}
        >
          Disable
        </button>
      )}
      <button
        type="button"
        aria-label={`Log of ${who}`}
        title={plugin.logFile}
        onClick={() => void openLog(plugin.layer, plugin.name)}
      >
        Log
      </button>
    </div>
  );
}

/**
 * The bound tool that hides a loaded plugin's tool (a later layer's plugin or server of the same
 * name), as a phrase: "global plugin word_count"; undefined when its own tool holds the name.
 */
function shadowedBy(plugin: PluginInfo, tools: readonly ToolInfo[]): string | undefined {
  if (plugin.state !== "loaded") return undefined;
  const over = tools.find((tool) =>
    tool.shadows.some((s) => s.kind === "plugin" && s.layer === plugin.layer && s.name === plugin.name),
  );
  return over ? originPhrase(over.origin) : undefined;
}

/** Every plugin folder of every layer: its version and state, why it is off and the fix, its log. */
export function PluginsPanel() {
  const status = useExtensions((s) => s.status);
  const tools = useAppState((s) => s.tools);
  const loadError = useExtensions((s) => s.loadError);
  const actionError = useExtensions((s) => s.actionError);
  const trusting = useAppState((s) => s.trusting);
  const trust = useAppState((s) => s.trustProject);
  const projectError = useAppState((s) => s.projectError);

  if (!status) {
    return (
      <section className="panel" aria-labelledby="plugins-heading">
        <h2 id="plugins-heading">Plugins</h2>
        <p className={loadError ? "field-error" : "muted"} role={loadError ? "alert" : undefined}>
          {loadError ?? "Loading…"}
        </p>
      </section>
    );
  }
  const waiting = status.plugins.filter((p) => p.approval === "untrusted");

  return (
    <section className="panel" aria-labelledby="plugins-heading">
      <div className="panel-head">
        <h2 id="plugins-heading">Plugins</h2>
        <span className="muted">
          {status.plugins.filter((p) => p.state === "loaded").length} of {status.plugins.length} loaded
        </span>
      </div>
      <p className="muted">
        Bundled plugins ship with Lathe, yours live in your Lathe folder&apos;s <code>tools/</code>, and the
        project&apos;s in <code>.lathe/tools/</code>. What you disable is saved in{" "}
        <code>{status.userSettingsFile}</code>. Develop a plugin in your <code>tools/</code>: it reloads after
        every change, while a project plugin waits for your approval again after each edit.
      </p>
      {waiting.length > 0 ? (
        <div className="trust-inline" role="note" aria-label="Project plugins wait for trust">
          <p>
            This folder is not trusted, so its {waiting.length === 1 ? "plugin" : `${waiting.length} plugins`}{" "}
            ({waiting.map((p) => p.name).join(", ")}) {waiting.length === 1 ? "is" : "are"} not loaded. Review{" "}
            <code>.lathe/tools/</code> first: trusting the folder approves each plugin as it is now.
          </p>
          <button type="button" className="run" disabled={trusting} onClick={() => void trust()}>
            {trusting ? "Trusting…" : "Trust this folder"}
          </button>
          <ErrorLine message={projectError} />
        </div>
      ) : null}
      <ErrorLine message={actionError} />
      {status.plugins.length === 0 ? (
        <p className="muted">No plugin folders found.</p>
      ) : (
        <div className="table-scroll">
          <table className="ext-table" aria-label="Plugins">
            <thead>
              <tr>
                <th scope="col">Plugin</th>
                <th scope="col">Layer</th>
                <th scope="col">Version</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {status.plugins.map((plugin) => {
                const badge = stateBadge(plugin);
                const hiddenBy = shadowedBy(plugin, tools);
                return (
                  <tr key={`${plugin.layer}:${plugin.name}`} aria-label={`${plugin.name} (${plugin.layer})`}>
                    <th scope="row">
                      <code className="tool-id" title={plugin.dir}>
                        {plugin.name}
                      </code>
                      {plugin.toolId && plugin.toolId !== plugin.name ? (
                        <span className="muted"> tool {plugin.toolId}</span>
                      ) : null}
                    </th>
                    <td>{plugin.layer}</td>
                    <td>{plugin.version ?? <span className="muted">—</span>}</td>
                    <td>
                      <span className={badge.className}>{badge.label}</span>
                      {hiddenBy ? (
                        <p className="row-reason">
                          Its tool is shadowed by {hiddenBy}, which holds the name{" "}
                          {plugin.toolId ?? plugin.name}.
                        </p>
                      ) : null}
                      {plugin.state === "disabled" && plugin.reason ? (
                        <p className="row-reason">{plugin.reason}</p>
                      ) : null}
                      {plugin.state === "disabled" && plugin.fix ? (
                        <p className="row-reason">
                          <strong>Fix:</strong> {plugin.fix}
                        </p>
                      ) : null}
                    </td>
                    <td>
                      <PluginActions plugin={plugin} trusted={status.projectTrusted} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <PluginLogViewer />
    </section>
  );
}
