import { useExtensions } from "../state/extensions-context.tsx";
import { ErrorLine } from "./error-line.tsx";
import { LiveLogView } from "./live-log-view.tsx";

/**
 * A plugin's log file: its runtime.log and console lines and Lathe's notes (isolate restarts with
 * their reason, failed calls with the file and line), newest at the bottom, read again while open.
 */
export function PluginLogViewer() {
  const log = useExtensions((s) => s.pluginLog);
  const refresh = useExtensions((s) => s.refreshPluginLog);
  const close = useExtensions((s) => s.closePluginLog);

  if (!log) return null;
  return (
    <section className="panel mcp-log" aria-labelledby="plugin-log-heading">
      <div className="panel-head">
        <h2 id="plugin-log-heading">
          Log: {log.name} ({log.layer})
        </h2>
        {log.file ? <code className="muted">{log.file}</code> : null}
      </div>
      <ErrorLine message={log.error} />
      <LiveLogView
        key={`${log.layer}:${log.name}`}
        lines={log.lines}
        refresh={refresh}
        label="Plugin log lines"
        empty={
          log.file === undefined
            ? "Loading…"
            : "(nothing logged yet: runtime.log and console lines, restarts and failed calls show up here)"
        }
      />
      <div className="row-actions">
        <button type="button" onClick={close}>
          Close log
        </button>
      </div>
    </section>
  );
}
