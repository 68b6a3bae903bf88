import { useMemo } from "react";
import { escapeBidiControlsDeep, hasBidiControlDeep } from "../../shared/bidi-controls.ts";
import type { ReviewedExtension, TrustReview } from "../../shared/trust-review-schema.ts";
import { grantsSomething } from "../state/app-store.ts";
import { useAppState } from "../state/store-context.tsx";
import { Modal } from "./modal.tsx";
import { ErrorLine } from "./error-line.tsx";
import { ReorderingWarning } from "./reordering-warning.tsx";

function Section({ title, count, children }: { title: string; count: number; children: React.ReactNode }) {
  if (count === 0) return null;
  return (
    <section className="trust-section" aria-label={title}>
      <h3>
        {title} <span className="muted">({count})</span>
      </h3>
      {children}
    </section>
  );
}

const PINNED: Record<ReviewedExtension["pinned"], string> = {
  match: "approved",
  new: "new",
  changed: "changed since you trusted it",
};

/** What a plugin may touch, as lines a person reads. */
function Requirements({ ext }: { ext: ReviewedExtension }) {
  const lines = [
    ...ext.requires.read.map((p) => `reads ${p}`),
    ...ext.requires.write.map((p) => `writes ${p}`),
    ...ext.requires.hosts.map((h) => `reaches ${h}`),
    ...(ext.kind === "plugin" ? ext.requires.commands.map((c) => `runs ${c}`) : []),
  ];
  if (lines.length === 0) return <p className="muted trust-detail">Asks for nothing beyond its input.</p>;
  return (
    <ul className="trust-requires" aria-label="Requires">
      {lines.map((line, index) => (
        <li key={index}>
          <code>{line}</code>
        </li>
      ))}
    </ul>
  );
}

/** One plugin or MCP server: what it requires, whether it asks, what it shadows, warnings, why it cannot load. */
function Extension({ ext }: { ext: ReviewedExtension }) {
  const label = `${ext.kind === "plugin" ? "Plugin" : "MCP server"} ${ext.name}`;
  return (
    <li className="trust-extension" aria-label={label}>
      <div className="trust-extension-head">
        <strong>{ext.name}</strong>
        {ext.toolId !== undefined && ext.toolId !== ext.name ? (
          <span className="muted">
            tool <code>{ext.toolId}</code>
          </span>
        ) : null}
        <span className={`badge ${ext.pinned === "match" ? "badge-read" : "badge-muted"}`}>
          {PINNED[ext.pinned]}
        </span>
        {ext.error === undefined && !ext.gated ? (
          <span
            className="badge badge-write"
            title="Its calls run without asking, even where a rule says ask"
          >
            gated: false
          </span>
        ) : null}
        {ext.readOnly ? <span className="badge badge-muted">read-only</span> : null}
      </div>
      {ext.kind === "mcp" && ext.requires.commands[0] !== undefined ? (
        <pre className="command-line trust-command" aria-label="Command line">
          {ext.requires.commands[0]}
        </pre>
      ) : (
        <p className="muted trust-location">{ext.location}</p>
      )}
      {ext.error !== undefined ? (
        <p className="field-error">It will not load: {ext.error}</p>
      ) : (
        <>
          {ext.kind === "plugin" || ext.requires.hosts.length > 0 ? <Requirements ext={ext} /> : null}
          {!ext.gated ? (
            <p className="trust-gated">Runs without asking: no approval prompt for its calls.</p>
          ) : null}
          {ext.shadows.map((shadow) => (
            <p key={shadow} className="trust-shadow">
              Shadows {shadow}
            </p>
          ))}
          {ext.warnings.length > 0 ? (
            <ul className="trust-warnings" aria-label="Warnings">
              {ext.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          ) : null}
        </>
      )}
    </li>
  );
}

/** Everything the folder's settings, plugins and servers would turn on, grouped as a person reviews them. */
function Grants({ review }: { review: TrustReview }) {
  const { rules, hooks, commands, approvals } = review.settings;
  const plugins = review.extensions.filter((e) => e.kind === "plugin");
  const servers = review.extensions.filter((e) => e.kind === "mcp");
  const list = (items: readonly string[]) => (
    <ul>
      {items.map((item, index) => (
        <li key={index}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  );
  return (
    <div className="approval-scroll trust-grants">
      <Section title="Permission rules" count={rules.length}>
        {list(rules)}
      </Section>
      <Section title="Hooks" count={hooks.length}>
        {list(hooks)}
      </Section>
      <Section title="Commands bash may run" count={commands.length}>
        {list(commands)}
      </Section>
      <Section title="Agents" count={review.agents.length}>
        {list(review.agents)}
      </Section>
      <Section title="Plugins" count={plugins.length}>
        <ul className="trust-extensions">
          {plugins.map((ext) => (
            <Extension key={ext.name} ext={ext} />
          ))}
        </ul>
      </Section>
      <Section title="MCP servers" count={servers.length}>
        <ul className="trust-extensions">
          {servers.map((ext) => (
            <Extension key={ext.name} ext={ext} />
          ))}
        </ul>
      </Section>
      {approvals !== undefined ? (
        <section className="trust-section" aria-label="Approvals">
          <h3>Approvals</h3>
          <p>
            Sets the approval <code>{approvals}</code>.
          </p>
        </section>
      ) : null}
      {review.problems.map((problem, index) => (
        <p key={index} role="alert" className="field-error">
          {problem}
        </p>
      ))}
    </div>
  );
}

/**
 * The trust dialog, shown when a folder that is not trusted asks for more than deny rules (and
 * from the header's "not trusted" badge): what trusting it turns on — the same review `lathe
 * trust` prints — then Trust or Not now.
 */
export function TrustDialog() {
  const open = useAppState((s) => s.trustDialogOpen);
  const reviewed = useAppState((s) => s.trustReview);
  // What the dialog shows: the folder's own words with every reordering character as its escape.
  const review = useMemo(() => (reviewed ? escapeBidiControlsDeep(reviewed) : undefined), [reviewed]);
  const reorders = useMemo(() => (reviewed ? hasBidiControlDeep(reviewed) : false), [reviewed]);
  const trusting = useAppState((s) => s.trusting);
  const error = useAppState((s) => s.projectError);
  const trust = useAppState((s) => s.trustProject);
  const close = useAppState((s) => s.closeTrustDialog);
  const nothing = review !== undefined && !grantsSomething(review);

  return (
    <Modal
      open={open && review !== undefined}
      // After a refusal, once the buttons are enabled again, the keyboard goes back to them (the
      // button pressed was disabled meanwhile, which left the focus nowhere).
      focusKey={trusting ? undefined : error}
      onClose={close}
      labelledBy="trust-title"
      className="trust-dialog"
    >
      {review ? (
        <div className="approval-body">
          <h2 id="trust-title">{review.trusted ? "This folder is trusted" : "Trust this folder?"}</h2>
          <p>
            <code>{review.root}</code>{" "}
            {review.trusted
              ? "is trusted: its settings apply in full."
              : nothing
                ? review.denyRules > 0
                  ? "asks for nothing beyond deny rules; trusting it changes nothing today."
                  : "asks for nothing; trusting it changes nothing today."
                : "asks for the following. Until you trust it, its settings only add deny rules and its plugins and MCP servers stay off."}
          </p>
          {review.denyRules > 0 ? (
            <p className="muted">
              {review.denyRules === 1 ? "Its deny rule applies" : `Its ${review.denyRules} deny rules apply`}{" "}
              either way.
            </p>
          ) : null}
          {reorders ? <ReorderingWarning what="What this folder asks for" /> : null}
          <Grants review={review} />
          <p className="muted">
            Trust a folder only if you know who wrote <code>{review.settingsFile}</code> and its{" "}
            <code>.lathe/tools</code>.
          </p>
          <ErrorLine message={error} />
          <div className="approval-actions">
            <button type="button" data-autofocus disabled={trusting} onClick={close}>
              {review.trusted ? "Close" : "Not now"}
            </button>
            {review.trusted ? null : (
              <button type="button" className="run" disabled={trusting} onClick={() => void trust()}>
                {trusting ? "Trusting…" : "Trust this folder"}
              </button>
            )}
          </div>
        </div>
      ) : null}
    </Modal>
  );
}
