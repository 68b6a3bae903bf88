import { useEffect, useState, type FormEvent } from "react";
import { PROVIDER_KEY_VARIABLES, SecretNameSchema, type SecretName } from "../../shared/secret-schemas.ts";
import { useProviders } from "../state/providers-context.tsx";
import { keyState, type KeyState } from "../state/providers-store.ts";

const PROVIDERS: Record<SecretName, { label: string; use: string }> = {
  anthropic: { label: "Anthropic", use: "models named anthropic:MODEL" },
  openai: { label: "OpenAI", use: "models named openai:MODEL" },
  brave: { label: "Brave Search", use: "web_search with a Brave provider" },
};

const BADGES: Record<KeyState, { label: string; className: string }> = {
  environment: { label: "from environment", className: "badge badge-read" },
  stored: { label: "stored in keychain", className: "badge badge-read" },
  unset: { label: "not set", className: "badge badge-muted" },
};

/** A password field and Save: what is typed goes to the host once and is then cleared, never shown. */
function KeyForm({ name }: { name: SecretName }) {
  const [value, setValue] = useState("");
  const pending = useProviders((s) => s.pending);
  const save = useProviders((s) => s.save);
  const label = `${PROVIDERS[name].label} API key`;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (value.trim() === "") return;
    void save(name, value).then((stored) => {
      if (stored) setValue("");
    });
  };

  return (
    <form className="provider-form" onSubmit={onSubmit} aria-label={`Store the ${label}`}>
      <label className="visually-hidden" htmlFor={`provider-key-${name}`}>
        {label}
      </label>
      <input
        id={`provider-key-${name}`}
        type="password"
        value={value}
        autoComplete="off"
        spellCheck={false}
        placeholder={`Paste the ${label}`}
        maxLength={4096}
        disabled={pending !== undefined}
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit" className="run" disabled={pending !== undefined || value.trim() === ""}>
        {pending === name ? "Saving…" : "Save"}
      </button>
    </form>
  );
}

function ProviderRow({ name }: { name: SecretName }) {
  const status = useProviders((s) => s.status);
  const pending = useProviders((s) => s.pending);
  const actionError = useProviders((s) => s.actionError);
  const saved = useProviders((s) => s.saved);
  const remove = useProviders((s) => s.remove);
  if (!status) return null;
  const { label, use } = PROVIDERS[name];
  const variable = PROVIDER_KEY_VARIABLES[name];
  const badge = BADGES[keyState(status, name)];
  const stored = status.stored.includes(name);
  const shadowed = stored && status.fromEnvironment.includes(name);

  return (
    <li className="provider-item" aria-label={label}>
      <div className="provider-head">
        <strong>{label}</strong>
        <code>{variable}</code>
        <span className={badge.className}>{badge.label}</span>
        {stored ? (
          <div className="row-actions">
            <button
              type="button"
              className="button-reject"
              disabled={pending !== undefined}
              aria-label={`Remove the ${label} key`}
              onClick={() => void remove(name)}
            >
              {pending === name ? "Removing…" : "Remove"}
            </button>
          </div>
        ) : null}
      </div>
      <p className="row-reason">
        For {use}.
        {shadowed ? ` ${variable} is set in the environment, so it is used instead of the stored key.` : ""}
      </p>
      {status.available ? <KeyForm name={name} /> : null}
      {saved === name ? (
        <p className="muted" role="status">
          Stored in the keychain; the next run uses it.
        </p>
      ) : null}
      {actionError?.name === name ? (
        <p role="alert" className="field-error">
          {actionError.message}
        </p>
      ) : null}
    </li>
  );
}

/** The cloud providers' keys: where each comes from, and storing or removing one in the OS keychain. */
export function ProvidersPanel() {
  const status = useProviders((s) => s.status);
  const loadError = useProviders((s) => s.loadError);
  const load = useProviders((s) => s.load);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="panel" aria-labelledby="providers-heading">
      <div className="panel-head">
        <h2 id="providers-heading">Providers</h2>
      </div>
      <p className="muted">
        Keys for cloud providers. A key set as an environment variable of Lathe always wins; a stored key is
        encrypted with the OS keychain, never written in plain text, and never shown again.
      </p>
      {!status ? (
        <p className={loadError ? "field-error" : "muted"} role={loadError ? "alert" : undefined}>
          {loadError ?? "Loading…"}
        </p>
      ) : (
        <>
          {!status.available ? (
            <div className="trust-inline" role="note" aria-label="Keychain not available">
              <p>
                <strong>Storing keys is not available here.</strong> {status.explanation}
              </p>
            </div>
          ) : null}
          <ul className="provider-list" aria-label="Provider keys">
            {SecretNameSchema.options.map((name) => (
              <ProviderRow key={name} name={name} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
