import { useEffect, useRef } from "react";
import { useExtensions } from "../state/extensions-context.tsx";
import { ErrorLine } from "./error-line.tsx";

/** How often an open plugin log is read again, so a call's lines show up while you watch. */
const POLL_MS = 2000;

/**
 * A plugin's log file: its runtime.log and console lines and Lathe's notes (isolate restarts with
 * their reason, failed calls with the file and line), newest at the bottom, refreshed while open.
 */
export function PluginLogViewer() {
  const log = useExtensions((s) => s.pluginLog);
  const refresh = useExtensions((s) => s.refreshPluginLog);
  const close = useExtensions((s) => s.closePluginLog);
  const view = useRef<HTMLPreElement>(null);
  const lineCount = log?.lines.length;
  const open = log !== undefined;

  useEffect(() => {
    const element = view.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lineCount]);

  useEffect(() => {
    if (!open) return undefined;
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [open, refresh]);

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
      <pre ref={view} className="log-view" aria-label="Plugin log lines" tabIndex={0}>
        {log.lines.length > 0
          ? log.lines.join("\n")
          : log.file === undefined
            ? "Loading…"
            : "(nothing logged yet: runtime.log and console lines, restarts and failed calls show up here)"}
      </pre>
      <div className="row-actions">
        <button type="button" onClick={close}>
          Close log
        </button>
      </div>
    </section>
  );
}
