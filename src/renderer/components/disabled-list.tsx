import { useExtensions } from "../state/extensions-context.tsx";
import { originPhrase } from "./origin-label.ts";

/** Every tool, plugin and server that is not in use: why, and what fixes it. */
export function DisabledList() {
  const disabled = useExtensions((s) => s.status?.disabled);

  return (
    <section className="panel" aria-labelledby="disabled-heading">
      <h2 id="disabled-heading">Disabled</h2>
      {!disabled ? (
        <p className="muted">Loading…</p>
      ) : disabled.length === 0 ? (
        <p className="muted">Nothing is disabled: every plugin and server loaded.</p>
      ) : (
        <ul className="disabled-list" aria-label="Disabled tools, plugins and servers">
          {disabled.map((entry) => (
            <li
              key={`${entry.origin.layer}:${entry.origin.kind}:${entry.origin.name ?? ""}:${entry.id}`}
              className="disabled-item"
              aria-label={entry.id}
            >
              <div className="disabled-head">
                <code className="tool-id">{entry.id}</code>
                <span className="muted">{originPhrase(entry.origin)}</span>
              </div>
              <p className="disabled-reason">{entry.reason}</p>
              <p className="disabled-fix">
                <strong>Fix:</strong> {entry.fix}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
