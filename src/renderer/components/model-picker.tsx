import { useEffect, useRef, useState, type FormEvent } from "react";
import type { GgufEntry, LocalServer } from "../../shared/model-catalog-schemas.ts";
import { useChat } from "../state/chat-context.tsx";
import {
  formatBytes,
  formatTokens,
  matchesFilter,
  modelEntry,
  type ModelEntry,
} from "../state/model-choice.ts";
import { CodeSpans } from "./code-spans.tsx";
import { Icon } from "./icons.tsx";
import { ErrorLine } from "./error-line.tsx";
import { useFitInside } from "./use-fit-inside.ts";

function ModelOption({ model, picked, onPick }: { model: ModelEntry; picked: boolean; onPick(): void }) {
  return (
    <button
      type="button"
      className="model-option"
      aria-pressed={picked}
      aria-label={`${model.id}${model.contextTokens ? `, ${formatTokens(model.contextTokens)} context` : ""}`}
      onClick={onPick}
    >
      <span className="model-option-check">{picked ? <Icon name="check" size={13} /> : null}</span>
      <span className="model-option-name">{model.name}</span>
      {model.contextTokens ? (
        <span className="model-option-meta">{formatTokens(model.contextTokens)} ctx</span>
      ) : null}
    </button>
  );
}

const STATE_LABEL: Record<LocalServer["state"], string> = {
  running: "running",
  stopped: "not running",
  error: "not answering",
};

function ServerGroup({
  server,
  filter,
  picked,
  pick,
}: {
  server: LocalServer;
  filter: string;
  picked: string;
  pick(id: string): void;
}) {
  const models = server.models
    .map((m) => ({ ...m, source: server.label }))
    .filter((m) => matchesFilter(m, filter));
  if (filter !== "" && models.length === 0) return null;
  return (
    <li className="model-group" aria-label={server.label}>
      <div className="model-group-head">
        <span className={`status-dot status-${server.state}`} aria-hidden="true" />
        <strong>{server.label}</strong>
        <span className="muted model-group-where">{new URL(server.baseURL).host}</span>
        <span className={`badge ${server.state === "running" ? "badge-read" : "badge-muted"}`}>
          {STATE_LABEL[server.state]}
        </span>
      </div>
      {server.message ? (
        <p className="model-group-note">
          <CodeSpans text={server.message} />
        </p>
      ) : null}
      {models.map((m) => (
        <ModelOption key={m.id} model={m} picked={m.id === picked} onPick={() => pick(m.id)} />
      ))}
    </li>
  );
}

function GgufOption({ file, picked, pick }: { file: GgufEntry; picked: boolean; pick(): void }) {
  if (file.problem !== undefined) {
    return (
      <p className="model-group-note" title={file.path}>
        <code>{file.name}</code> cannot be used: {file.problem}
      </p>
    );
  }
  return (
    <button
      type="button"
      className="model-option"
      aria-pressed={picked}
      aria-label={`${file.id}${file.contextTokens ? `, ${formatTokens(file.contextTokens)} context` : ""}`}
      title={file.path}
      onClick={pick}
    >
      <span className="model-option-check">{picked ? <Icon name="check" size={13} /> : null}</span>
      <span className="model-option-name">{file.title ? `${file.title} · ${file.name}` : file.name}</span>
      <span className="model-option-meta">
        {formatBytes(file.bytes)}
        {file.contextTokens ? ` · ${formatTokens(file.contextTokens)} ctx` : ""}
      </span>
    </button>
  );
}

/** Add a GGUF file: the system's file picker in the desktop app, a typed path in a browser. */
function AddGguf() {
  const addGguf = useChat((s) => s.addGguf);
  const [path, setPath] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const add = async (file: string) => {
    setBusy(true);
    const refusal = await addGguf(file);
    setBusy(false);
    setError(refusal);
    if (refusal === undefined) setPath("");
  };
  const desktop = window.latheDesktop;
  if (desktop) {
    return (
      <div className="model-add">
        <button
          type="button"
          disabled={busy}
          onClick={() => void desktop.pickGguf().then((file) => (file ? add(file) : undefined))}
        >
          <Icon name="plus" size={13} /> Add a GGUF file…
        </button>
        <ErrorLine message={error} />
      </div>
    );
  }
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (path.trim() !== "") void add(path.trim());
  };
  return (
    <form className="model-add" onSubmit={onSubmit} aria-label="Add a GGUF file">
      <input
        type="text"
        value={path}
        spellCheck={false}
        placeholder="/path/to/model.gguf"
        aria-label="Path of a GGUF file"
        onChange={(event) => setPath(event.target.value)}
      />
      <button type="submit" disabled={busy || path.trim() === ""}>
        {busy ? "Adding…" : "Add"}
      </button>
      <ErrorLine message={error} />
    </form>
  );
}

/** Any model by name, as PROVIDER:MODEL. */
function OtherModel({ pick }: { pick(id: string): void }) {
  const [spec, setSpec] = useState("");
  const valid = /^[a-z][a-z0-9-]*:.+$/.test(spec.trim());
  return (
    <form
      className="model-add"
      aria-label="Another model"
      onSubmit={(event) => {
        event.preventDefault();
        if (valid) pick(spec.trim());
      }}
    >
      <input
        type="text"
        value={spec}
        spellCheck={false}
        placeholder="provider:model, e.g. lmstudio:phi-4"
        aria-label="Model as PROVIDER:MODEL"
        onChange={(event) => setSpec(event.target.value)}
      />
      <button type="submit" disabled={!valid}>
        Use
      </button>
    </form>
  );
}

/** The popover: every detected model by where it runs, how to start what is not running, and more. */
function PickerPanel({ close }: { close(): void }) {
  const catalog = useChat((s) => s.catalog);
  const loading = useChat((s) => s.catalogLoading);
  const error = useChat((s) => s.catalogError);
  const picked = useChat((s) => s.model);
  const pickModel = useChat((s) => s.pickModel);
  const refresh = useChat((s) => s.refreshCatalog);
  const [filter, setFilter] = useState("");
  const panel = useRef<HTMLDivElement>(null);
  // In a narrow window the button sits far left of the header's end: keep the panel beside the sidebar.
  useFitInside(panel);
  const pick = (id: string) => {
    void pickModel(id);
    close();
  };
  const files = (catalog?.gguf.files ?? []).filter(
    (f) => filter === "" || matchesFilter({ id: f.id, name: f.name, source: "GGUF file" }, filter),
  );

  return (
    <div ref={panel} className="model-panel" role="dialog" aria-label="Choose a model">
      <div className="model-panel-top">
        <input
          type="search"
          value={filter}
          placeholder="Filter models"
          aria-label="Filter models"
          data-autofocus
          onChange={(event) => setFilter(event.target.value)}
        />
        <button
          type="button"
          className="icon-button"
          aria-label="Look for models again"
          title="Look for models again"
          disabled={loading}
          onClick={() => void refresh()}
        >
          <Icon name="refresh" size={14} />
        </button>
      </div>
      <ErrorLine message={error} />
      {!catalog ? (
        <p className="muted">{loading ? "Looking for models…" : "No models listed yet."}</p>
      ) : (
        <div className="model-panel-scroll">
          <section aria-label="Local servers">
            <h3>Local servers</h3>
            <ul className="model-groups">
              {catalog.local.map((server) => (
                <ServerGroup
                  key={server.provider}
                  server={server}
                  filter={filter}
                  picked={picked}
                  pick={pick}
                />
              ))}
            </ul>
          </section>
          <section aria-label="GGUF files">
            <h3>
              GGUF files <span className="muted">in {catalog.gguf.folder}</span>
            </h3>
            {catalog.gguf.problem ? <p className="field-error">{catalog.gguf.problem}</p> : null}
            {files.map((file) => (
              <GgufOption key={file.id} file={file} picked={file.id === picked} pick={() => pick(file.id)} />
            ))}
            {catalog.gguf.files.length === 0 ? (
              <p className="model-group-note">
                None yet. A GGUF file runs in-process, offline: nothing to install or start.
              </p>
            ) : null}
            <AddGguf />
          </section>
          <section aria-label="Cloud">
            <h3>Cloud</h3>
            <ul className="model-groups">
              {catalog.cloud.map((cloud) => (
                <li key={cloud.provider} className="model-group" aria-label={cloud.label}>
                  <div className="model-group-head">
                    <span
                      className={`status-dot status-${cloud.keySet ? "running" : "stopped"}`}
                      aria-hidden="true"
                    />
                    <strong>{cloud.label}</strong>
                    <span className={`badge ${cloud.keySet ? "badge-read" : "badge-muted"}`}>
                      {cloud.keySet ? "key set" : "no key"}
                    </span>
                  </div>
                  {cloud.keySet ? (
                    cloud.models
                      .map((m) => ({ ...m, source: cloud.label }))
                      .filter((m) => matchesFilter(m, filter))
                      .map((m) => (
                        <ModelOption
                          key={m.id}
                          model={m}
                          picked={m.id === picked}
                          onPick={() => pick(m.id)}
                        />
                      ))
                  ) : (
                    <p className="model-group-note">
                      Set <code>{cloud.keyVariable}</code> in Lathe&apos;s environment, or store a key in
                      Settings → Providers.
                    </p>
                  )}
                </li>
              ))}
            </ul>
          </section>
          <section aria-label="Another model">
            <h3>Another model</h3>
            <OtherModel pick={pick} />
          </section>
          {catalog.notices.map((notice) => (
            <p key={notice} className="notice">
              {notice}
            </p>
          ))}
        </div>
      )}
      <p className="model-panel-foot muted">The model you pick is remembered for this folder.</p>
    </div>
  );
}

/**
 * The chat's model picker: a button naming the model (where it runs, its context size) that opens
 * the list of everything detected — local servers with their models or how to start them, GGUF
 * files in the models folder, cloud providers with a key — and any model typed as PROVIDER:MODEL.
 */
export function ModelPicker() {
  const catalog = useChat((s) => s.catalog);
  const model = useChat((s) => s.model);
  const running = useChat((s) => s.running);
  const loadCatalog = useChat((s) => s.refreshCatalog);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const entry = modelEntry(catalog, model);

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    const onDown = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    // Esc closes it wherever focus is (a button that turned disabled leaves focus on the page).
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      setOpen(false);
      root.current?.querySelector<HTMLElement>(".model-button")?.focus();
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [open]);

  return (
    <div className="model-picker" ref={root}>
      <button
        type="button"
        className="model-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={`Model: ${model || "none picked"}`}
        disabled={running}
        title={model || "Pick a model"}
        onClick={() => {
          if (!open) void loadCatalog();
          setOpen(!open);
        }}
      >
        <Icon name="model" size={14} />
        {entry ? (
          <>
            <span className="model-button-name">{entry.name}</span>
            {entry.source ? (
              <span className="model-button-source">{entry.source.replace(/^The /, "")}</span>
            ) : null}
          </>
        ) : (
          <span className="model-button-name muted">Pick a model</span>
        )}
        <Icon name="chevron" size={11} className="model-button-chevron" />
      </button>
      {open ? <PickerPanel close={() => setOpen(false)} /> : null}
    </div>
  );
}
