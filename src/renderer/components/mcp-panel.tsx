import { useEffect, useRef, useState } from "react";
import type { McpServerInfo, McpServerState } from "../../shared/extensions-schemas.ts";
import { useExtensions } from "../state/extensions-context.tsx";
import { McpLogViewer } from "./mcp-log-viewer.tsx";
import { McpServerFormView } from "./mcp-server-form.tsx";
import { ErrorLine } from "./error-line.tsx";
import { focusIsLost, focusViewStart } from "../use-focus-view.ts";

const STATE_BADGE: Record<McpServerState, string> = {
  starting: "badge badge-running",
  connected: "badge badge-read",
  reconnecting: "badge badge-write",
  failed: "badge badge-error",
  disabled: "badge badge-muted",
};

/**
 * A server's buttons. Remove asks first, in place, with the keyboard on Keep it (the safe answer);
 * Keep it (or Esc) gives the keyboard back to Remove, and once the server is removed it goes to the view's
 * heading (the row went with the buttons).
 */
function ServerActions({ server }: { server: McpServerInfo }) {
  const pending = useExtensions((s) => s.pending);
  const restart = useExtensions((s) => s.restartServer);
  const openLog = useExtensions((s) => s.openLog);
  const openEdit = useExtensions((s) => s.openEditForm);
  const setEnabled = useExtensions((s) => s.setServerEnabled);
  const remove = useExtensions((s) => s.removeServer);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const busy = pending !== undefined;
  const keepButton = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirmRemove) keepButton.current?.focus();
    else if (wasConfirming.current && focusIsLost()) removeButton.current?.focus();
    wasConfirming.current = confirmRemove;
  }, [confirmRemove]);

  if (confirmRemove) {
    return (
      <div
        className="row-actions"
        role="group"
        aria-label={`Remove ${server.name}?`}
        // Esc keeps it, as Keep it does (and as Esc leaves the app's dialogs).
        onKeyDown={(event) => {
          if (event.key !== "Escape") return;
          event.preventDefault();
          event.stopPropagation();
          setConfirmRemove(false);
        }}
      >
        <span>Remove {server.name} from your settings?</span>
        <button
          type="button"
          className="button-reject"
          disabled={busy}
          onClick={() => {
            setConfirmRemove(false);
            void remove(server.name).then(() => {
              if (!focusIsLost()) return;
              // Not removed (it says why): back on its Remove; removed: the view's heading.
              if (removeButton.current?.isConnected) removeButton.current.focus();
              else focusViewStart("extensions");
            });
          }}
        >
          Remove
        </button>
        <button type="button" ref={keepButton} onClick={() => setConfirmRemove(false)}>
          Keep it
        </button>
      </div>
    );
  }
  return (
    <div className="row-actions">
      {server.canRestart ? (
        <button type="button" disabled={busy} onClick={() => void restart(server.name)}>
          {pending === `restart:${server.name}` ? "Restarting…" : "Restart"}
        </button>
      ) : null}
      <button type="button" onClick={() => void openLog(server.name)}>
        Log
      </button>
      {server.editable ? (
        <>
          <button type="button" disabled={busy} onClick={() => openEdit(server.name)}>
            Edit
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => void setEnabled(server.name, server.disabledInSettings)}
          >
            {server.disabledInSettings ? "Enable" : "Disable"}
          </button>
          <button type="button" ref={removeButton} disabled={busy} onClick={() => setConfirmRemove(true)}>
            Remove
          </button>
        </>
      ) : null}
    </div>
  );
}

/** MCP servers: their state, exact command, tools and last error; add, edit, remove, restart, logs. */
export function McpPanel() {
  const status = useExtensions((s) => s.status);
  const loadError = useExtensions((s) => s.loadError);
  const actionError = useExtensions((s) => s.actionError);
  const form = useExtensions((s) => s.form);
  const openAdd = useExtensions((s) => s.openAddForm);
  const pending = useExtensions((s) => s.pending);

  return (
    <>
      <section className="panel" aria-labelledby="mcp-heading">
        <div className="panel-head">
          <h2 id="mcp-heading">MCP servers</h2>
          <button type="button" disabled={form !== undefined || !status} onClick={openAdd}>
            Add server
          </button>
        </div>
        {status ? (
          <p className="muted">
            Servers you add, edit or remove here are saved in <code>{status.userSettingsFile}</code>; the
            project&apos;s own servers are changed in its <code>.lathe/settings.json</code>.
          </p>
        ) : null}
        {status?.settingsProblem ? (
          <p role="alert" className="field-error">
            {status.settingsProblem}
          </p>
        ) : null}
        <ErrorLine message={loadError} />
        <ErrorLine message={actionError} />
        <McpServerFormView />
        {pending?.startsWith("remove:") || pending?.startsWith("enable:") ? (
          <p className="muted" role="status">
            Restarting Lathe&apos;s servers with your settings…
          </p>
        ) : null}
        {!status ? (
          <p className="muted">Loading…</p>
        ) : status.mcpServers.length === 0 ? (
          <p className="muted">No MCP servers are configured.</p>
        ) : (
          <ul className="server-list" aria-label="MCP servers">
            {status.mcpServers.map((server) => (
              <li key={`${server.layer}:${server.name}`} className="server-item" aria-label={server.name}>
                <div className="server-head">
                  <code className="tool-id">{server.name}</code>
                  <span className="muted">
                    {server.layer === "global" ? "your settings" : "project settings"}
                  </span>
                  <span className={STATE_BADGE[server.state]} aria-label={`state ${server.state}`}>
                    {server.state}
                  </span>
                  <span className="muted">
                    {server.toolCount} {server.toolCount === 1 ? "tool" : "tools"}
                    {server.pid !== undefined ? ` · pid ${server.pid}` : ""}
                  </span>
                </div>
                <pre className="command-line" aria-label="Command line">
                  {server.commandLine}
                </pre>
                {server.lastError ? <p className="row-reason">Last error: {server.lastError}</p> : null}
                {server.notes?.map((note) => (
                  <p key={note} className="muted">
                    {note}
                  </p>
                ))}
                <ServerActions server={server} />
              </li>
            ))}
          </ul>
        )}
      </section>
      <McpLogViewer />
    </>
  );
}
