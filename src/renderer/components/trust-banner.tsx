import type { ReviewedExtension } from "../../shared/trust-review-schema.ts";
import { useAppState } from "../state/store-context.tsx";

/** One plugin or MCP server: what it requires, gated: false, what it shadows, warnings. */
function ExtensionReview({ ext }: { ext: ReviewedExtension }) {
  const parts: Array<[string, string[]]> = [
    ["reads", ext.requires.read],
    ["writes", ext.requires.write],
    ["hosts", ext.requires.hosts],
    ["commands", ext.requires.commands],
    ["shadows", ext.shadows],
  ];
  return (
    <li>
      <strong>
        {ext.kind === "plugin" ? "Plugin" : "MCP server"} {ext.name}
      </strong>
      {ext.pinned === "new" ? " (new)" : ext.pinned === "changed" ? " (changed since you trusted it)" : ""}
      {ext.error ? (
        <p className="field-error">It will not load: {ext.error}</p>
      ) : (
        <ul aria-label={`What ${ext.name} requires`}>
          {parts
            .filter(([, values]) => values.length > 0)
            .map(([label, values]) => (
              <li key={label}>
                {label}: <code>{values.join(", ")}</code>
              </li>
            ))}
          {!ext.gated ? (
            <li>
              <strong>gated: false</strong> — its calls run without asking, even where a rule says ask
            </li>
          ) : null}
          {ext.warnings.map((warning) => (
            <li key={warning} className="field-error">
              {warning}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * First-run notice for a folder the user has not trusted yet whose settings ask for more than
 * deny rules: what is being ignored, and the choice to trust it (its settings then apply in full).
 */
export function TrustBanner() {
  const project = useAppState((s) => s.project);
  const dismissed = useAppState((s) => s.trustDismissed);
  const trusting = useAppState((s) => s.trusting);
  const error = useAppState((s) => s.projectError);
  const trust = useAppState((s) => s.trustProject);
  const dismiss = useAppState((s) => s.dismissTrust);
  const review = useAppState((s) => s.trustReview);
  const extensions = review?.extensions ?? [];

  if (!project || project.trusted || dismissed) return null;
  if (project.notices.length === 0 && extensions.length === 0) return null;
  return (
    <section className="trust-banner" aria-labelledby="trust-title">
      <h2 id="trust-title">This folder is not trusted</h2>
      <p>
        <code>{project.root}</code> has its own Lathe settings. Until you trust it, they can only add deny
        rules:
      </p>
      <ul aria-label="Trust notices">
        {project.notices.map((notice, index) => (
          <li key={index}>{notice}</li>
        ))}
      </ul>
      {extensions.length > 0 ? (
        <>
          <p>Trusting it also turns on these plugins and MCP servers:</p>
          <ul aria-label="Plugins and MCP servers">
            {extensions.map((ext) => (
              <ExtensionReview key={`${ext.kind}:${ext.name}`} ext={ext} />
            ))}
          </ul>
        </>
      ) : null}
      <p className="muted">
        Trust a folder only if you know who wrote its <code>.lathe/settings.json</code>: its allow rules and
        hooks then apply to every call.
      </p>
      {error ? (
        <p role="alert" className="field-error">
          {error}
        </p>
      ) : null}
      <div className="trust-actions">
        <button type="button" className="run" disabled={trusting} onClick={() => void trust()}>
          {trusting ? "Trusting…" : "Trust this folder"}
        </button>
        <button type="button" disabled={trusting} onClick={dismiss}>
          Not now
        </button>
      </div>
    </section>
  );
}
