import { useExtensions } from "../state/extensions-context.tsx";
import { ErrorLine } from "./error-line.tsx";
import { LiveLogView } from "./live-log-view.tsx";

/** A server's log (its stderr and Lathe's notes), newest at the bottom, read again while open. */
export function McpLogViewer() {
  const log = useExtensions((s) => s.log);
  const refresh = useExtensions((s) => s.refreshLog);
  const close = useExtensions((s) => s.closeLog);

  if (!log) return null;
  return (
    <section className="panel mcp-log" aria-labelledby="mcp-log-heading">
      <div className="panel-head">
        <h2 id="mcp-log-heading">Log: {log.name}</h2>
        {log.file ? <code className="muted">{log.file}</code> : null}
      </div>
      <ErrorLine message={log.error} />
      <LiveLogView
        key={log.name}
        lines={log.lines}
        refresh={refresh}
        label="Log lines"
        empty={log.loading ? "Loading…" : "(nothing logged yet)"}
      />
      <div className="row-actions">
        <button type="button" onClick={close}>
          Close log
        </button>
      </div>
    </section>
  );
}
