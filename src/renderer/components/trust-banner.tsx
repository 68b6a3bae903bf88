import { useAppState } from "../state/store-context.tsx";

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

  if (!project || project.trusted || project.notices.length === 0 || dismissed) return null;
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
