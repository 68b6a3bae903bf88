import type { RequirementSummary, TrustPrompt } from "../../shared/project-schemas.ts";
import { useAppState } from "../state/store-context.tsx";
import { Modal } from "./modal.tsx";

function Requirements({ requires }: { requires: RequirementSummary }) {
  const lines = [
    ...requires.read.map((p) => `reads ${p}`),
    ...requires.write.map((p) => `writes ${p}`),
    ...requires.hosts.map((h) => `reaches ${h}`),
    ...requires.commands.map((c) => `runs ${c}`),
    ...requires.capabilities.map((c) => `uses ${c}`),
  ];
  if (lines.length === 0) return <span className="muted"> · asks for nothing beyond its input</span>;
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

const PINNED: Record<TrustPrompt["plugins"][number]["pinned"], string> = {
  match: "approved",
  new: "new",
  changed: "changed since you trusted it",
};

/** Everything the folder's settings would turn on, grouped as a person reviews them. */
function Grants({ prompt }: { prompt: TrustPrompt }) {
  return (
    <div className="approval-scroll trust-grants">
      <Section title="Permission rules" count={prompt.rules.length}>
        <ul>
          {prompt.rules.map((rule, index) => (
            <li key={index}>
              <code>
                {rule.action} {rule.permission} “{rule.pattern}”
              </code>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Hooks" count={prompt.hooks.length}>
        <ul>
          {prompt.hooks.map((hook, index) => (
            <li key={index}>
              <code>{hook.command}</code>
              {hook.tools ? <span className="muted"> for {hook.tools.join(", ")}</span> : null}
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Commands bash may run" count={prompt.commands.length}>
        <ul>
          {prompt.commands.map((command, index) => (
            <li key={index}>
              <code>{command}</code>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="MCP servers" count={prompt.mcpServers.length}>
        <ul>
          {prompt.mcpServers.map((server) => (
            <li key={server.name}>
              <strong>{server.name}</strong> starts
              <pre className="command-line trust-command">{server.commandLine}</pre>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Plugins" count={prompt.plugins.length}>
        <ul>
          {prompt.plugins.map((plugin) => (
            <li key={plugin.name} aria-label={`Plugin ${plugin.name}`}>
              <strong>{plugin.name}</strong> <span className="muted">({PINNED[plugin.pinned]})</span>
              {plugin.requires ? <Requirements requires={plugin.requires} /> : null}
              {plugin.problem ? <p className="field-error">Cannot load: {plugin.problem}</p> : null}
            </li>
          ))}
        </ul>
      </Section>
      {prompt.approvalsMode ? (
        <section className="trust-section" aria-label="Approvals">
          <h3>Approvals</h3>
          <p>
            Sets the approval mode to <code>{prompt.approvalsMode}</code>.
          </p>
        </section>
      ) : null}
      {prompt.problems.map((problem, index) => (
        <p key={index} role="alert" className="field-error">
          {problem}
        </p>
      ))}
    </div>
  );
}

/**
 * The trust dialog, shown when a folder that is not trusted asks for more than deny rules (and
 * from the header's "not trusted" badge): what trusting it turns on, then Trust or Not now.
 */
export function TrustDialog() {
  const open = useAppState((s) => s.trustDialogOpen);
  const prompt = useAppState((s) => s.trustPrompt);
  const trusting = useAppState((s) => s.trusting);
  const error = useAppState((s) => s.projectError);
  const trust = useAppState((s) => s.trustProject);
  const close = useAppState((s) => s.closeTrustDialog);
  const nothing =
    prompt !== undefined &&
    prompt.rules.length +
      prompt.hooks.length +
      prompt.commands.length +
      prompt.mcpServers.length +
      prompt.plugins.length ===
      0 &&
    prompt.approvalsMode === undefined;

  return (
    <Modal
      open={open && prompt !== undefined}
      onClose={close}
      labelledBy="trust-title"
      className="trust-dialog"
    >
      {prompt ? (
        <div className="approval-body">
          <h2 id="trust-title">{prompt.trusted ? "This folder is trusted" : "Trust this folder?"}</h2>
          <p>
            <code>{prompt.root}</code>{" "}
            {prompt.trusted
              ? "is trusted: its settings apply in full."
              : nothing
                ? "asks for nothing beyond deny rules; trusting it changes nothing today."
                : "asks for the following. Until you trust it, its settings only add deny rules and its plugins and MCP servers stay off."}
          </p>
          {prompt.denyRules > 0 ? (
            <p className="muted">
              {prompt.denyRules === 1 ? "Its deny rule applies" : `Its ${prompt.denyRules} deny rules apply`}{" "}
              either way.
            </p>
          ) : null}
          <Grants prompt={prompt} />
          <p className="muted">
            Trust a folder only if you know who wrote <code>{prompt.settingsFile}</code> and its{" "}
            <code>.lathe/tools</code>.
          </p>
          {error ? (
            <p role="alert" className="field-error">
              {error}
            </p>
          ) : null}
          <div className="approval-actions">
            <button type="button" data-autofocus disabled={trusting} onClick={close}>
              {prompt.trusted ? "Close" : "Not now"}
            </button>
            {prompt.trusted ? null : (
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
