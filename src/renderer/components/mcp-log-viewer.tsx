import { useEffect, useRef } from "react";
import { useExtensions } from "../state/extensions-context.tsx";
import { ErrorLine } from "./error-line.tsx";

/** A server's log (its stderr and Lathe's notes), newest at the bottom, refreshed on request. */
export function McpLogViewer() {
  const log = useExtensions((s) => s.log);
  const refresh = useExtensions((s) => s.refreshLog);
  const close = useExtensions((s) => s.closeLog);
  const view = useRef<HTMLPreElement>(null);
  const lineCount = log?.lines.length;

  useEffect(() => {
    const element = view.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lineCount]);

  if (!log) return null;
  return (
    <section className="panel mcp-log" aria-labelledby="mcp-log-heading">
      <div className="panel-head">
        <h2 id="mcp-log-heading">Log: {log.name}</h2>
        {log.file ? <code className="muted">{log.file}</code> : null}
      </div>
      <ErrorLine message={log.error} />
      <pre ref={view} className="log-view" aria-label="Log lines" tabIndex={0}>
        {log.lines.length > 0 ? log.lines.join("\n") : log.loading ? "Loading…" : "(nothing logged yet)"}
      </pre>
      <div className="row-actions">
        <button type="button" disabled={log.loading} onClick={() => void refresh()}>
          {log.loading ? "Refreshing…" : "Refresh log"}
        </button>
        <button type="button" onClick={close}>
          Close log
        </button>
      </div>
    </section>
  );
}
