import { useEffect } from "react";
import { useChat } from "../state/chat-context.tsx";
import { formatBytes, formatTokens } from "../state/model-choice.ts";
import { CodeSpans } from "./code-spans.tsx";
import { ErrorLine } from "./error-line.tsx";

/**
 * Settings → Models: what the model picker finds — each local server where it was looked for
 * (settings' `providers.<name>.baseURL`, else its usual port) and whether it runs, the GGUF files
 * in the models folder, the cloud providers with a key — and the folder's remembered model.
 */
export function ModelsPanel() {
  const catalog = useChat((s) => s.catalog);
  const loading = useChat((s) => s.catalogLoading);
  const error = useChat((s) => s.catalogError);
  const refresh = useChat((s) => s.refreshCatalog);
  const forget = useChat((s) => s.forgetProjectModel);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <div className="settings-stack">
      <section className="panel settings-card" aria-labelledby="servers-heading">
        <div className="panel-head">
          <h2 id="servers-heading">Local model servers</h2>
          <button type="button" disabled={loading} onClick={() => void refresh()}>
            {loading ? "Looking…" : "Look again"}
          </button>
        </div>
        <p className="muted">
          Each is looked for where <code>providers.&lt;name&gt;.baseURL</code> in settings says, else on its
          usual port, for a moment only.
        </p>
        <ErrorLine message={error} />
        <ul className="server-status-list" aria-label="Local servers">
          {(catalog?.local ?? []).map((server) => (
            <li key={server.provider} aria-label={server.label} className="server-status">
              <span className={`status-dot status-${server.state}`} aria-hidden="true" />
              {/* Name, address and origin wrap among themselves, so the state stays at the right end. */}
              <span className="server-status-name">
                <strong>{server.label}</strong>
                <code className="muted">{server.baseURL}</code>
                {server.configured ? <span className="badge badge-muted">from settings</span> : null}
              </span>
              <span className={`badge ${server.state === "running" ? "badge-read" : "badge-muted"}`}>
                {server.state === "running"
                  ? `${server.models.length} model${server.models.length === 1 ? "" : "s"}`
                  : server.state === "stopped"
                    ? "not running"
                    : "not answering"}
              </span>
              {server.message ? (
                <p className="server-status-note">
                  <CodeSpans text={server.message} />
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      <section className="panel settings-card" aria-labelledby="gguf-heading">
        <div className="panel-head">
          <h2 id="gguf-heading">GGUF files</h2>
        </div>
        <p className="muted">
          In <code>{catalog?.gguf.folder ?? "$LATHE_HOME/models"}</code>; they run in-process, offline. Add
          one from the model picker in the chat.
        </p>
        <ul className="server-status-list" aria-label="GGUF files">
          {(catalog?.gguf.files ?? []).map((file) => (
            <li key={file.id} className="server-status" aria-label={file.name}>
              <strong>{file.title ?? file.name}</strong>
              <code className="muted">{file.path}</code>
              <span className="settings-spacer" />
              <span className="muted">
                {formatBytes(file.bytes)}
                {file.contextTokens ? ` · ${formatTokens(file.contextTokens)} context` : ""}
              </span>
              {file.problem ? (
                <p className="server-status-note field-error">It cannot be used: {file.problem}</p>
              ) : null}
            </li>
          ))}
        </ul>
        {catalog && catalog.gguf.files.length === 0 ? <p className="muted">None yet.</p> : null}
      </section>
      <section className="panel settings-card" aria-labelledby="default-heading">
        <div className="panel-head">
          <h2 id="default-heading">This folder&apos;s model</h2>
        </div>
        <p>
          {catalog?.projectModel ? (
            <>
              New chats here start with <code>{catalog.projectModel}</code> (the model you last picked here).{" "}
              <button type="button" className="link-button" onClick={() => void forget()}>
                Forget it
              </button>
            </>
          ) : catalog?.defaultModel ? (
            <>
              New chats start with the settings&apos; <code>defaultModel</code>:{" "}
              <code>{catalog.defaultModel}</code>.
            </>
          ) : (
            "No model remembered: new chats start with the first running one."
          )}
        </p>
      </section>
    </div>
  );
}
