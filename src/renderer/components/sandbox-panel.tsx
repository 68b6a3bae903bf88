import { useEffect } from "react";
import { useAppState } from "../state/store-context.tsx";
import { useSettings } from "../state/settings-context.tsx";

/**
 * Settings → Sandbox: which walls stand around what the agent does — the parser policy always,
 * the OS sandbox when settings and the machine allow, else why not and the fix — from the same
 * check as `lathe doctor`, with the toolchain checks behind it.
 */
export function SandboxPanel() {
  const report = useSettings((s) => s.sandbox);
  const loading = useSettings((s) => s.sandboxLoading);
  const error = useSettings((s) => s.sandboxError);
  const load = useSettings((s) => s.loadSandbox);
  const root = useAppState((s) => s.project?.root);

  useEffect(() => {
    void load();
  }, [load, root]);

  if (!report) {
    return (
      <p className={error ? "field-error" : "muted"} role={error ? "alert" : undefined}>
        {error ?? "Checking the sandbox (the same check as lathe doctor)…"}
      </p>
    );
  }
  const { sandbox, policy } = report.walls;
  const mismatch = sandbox.active !== report.engine.active;
  return (
    <div className="settings-stack">
      <section className="panel settings-card" aria-labelledby="walls-heading">
        <div className="panel-head">
          <h2 id="walls-heading">Containment</h2>
          <button type="button" disabled={loading} onClick={() => void load()}>
            {loading ? "Checking…" : "Check again"}
          </button>
        </div>
        <ul className="walls" aria-label="Walls">
          <li className="wall wall-on" aria-label="Parser policy">
            <span className="wall-state">on</span>
            <div>
              <strong>Parser policy</strong>
              {/* The report's words follow a label in `lathe doctor`; here they stand as a sentence. */}
              <p>
                {policy.detail.charAt(0).toUpperCase()}
                {policy.detail.slice(1)}.
              </p>
            </div>
          </li>
          <li className={`wall ${sandbox.active ? "wall-on" : "wall-off"}`} aria-label="OS sandbox">
            <span className="wall-state">{sandbox.active ? "on" : "off"}</span>
            <div>
              <strong>OS sandbox{sandbox.mechanism ? ` (${sandbox.mechanism})` : ""}</strong>
              {sandbox.active ? (
                <>
                  <p>
                    bash, plugin commands and stdio MCP servers run confined: writes only in the workspace,{" "}
                    {sandbox.network.length === 0
                      ? "no network (sandbox.allowNetwork names none)."
                      : `network only to ${sandbox.network.join(", ")} (sandbox.allowNetwork).`}
                  </p>
                  <p aria-label="Hidden from confined processes">
                    {sandbox.hidden.present.length === 0 ? (
                      <>
                        They cannot read Lathe&apos;s own data. None of the {sandbox.hidden.absent.length}{" "}
                        places sandbox.denyRead lists (where credentials usually live) is on this machine.
                      </>
                    ) : (
                      <>
                        They cannot read{" "}
                        {sandbox.hidden.present.map((p, i) => (
                          <span key={p}>
                            {i > 0 ? ", " : ""}
                            <code>{p}</code>
                          </span>
                        ))}{" "}
                        (where credentials live, as sandbox.denyRead lists them
                        {sandbox.hidden.absent.length > 0
                          ? `; ${sandbox.hidden.absent.length} more listed are not on this machine`
                          : ""}
                        ), nor Lathe&apos;s own data.
                      </>
                    )}
                  </p>
                </>
              ) : (
                <>
                  <p>
                    Not active: {sandbox.reason}. Lathe fails closed: bash commands that are not provably
                    read-only, plugin commands and unconfined MCP servers need a person.
                  </p>
                  {sandbox.fix ? (
                    <p className="wall-fix">
                      <strong>Fix:</strong> {sandbox.fix}
                    </p>
                  ) : null}
                </>
              )}
              <p aria-label="Withheld from their environment">
                {sandbox.env.withheld.length === 0 ? (
                  <>
                    None of Lathe&apos;s environment variables is withheld from bash, plugin commands and MCP
                    servers: none is set that sandbox.denyEnv ({sandbox.env.denyEnv.length} names and
                    patterns) or Lathe&apos;s own keys name.
                  </>
                ) : (
                  <>
                    bash, plugin commands and MCP servers start without{" "}
                    {sandbox.env.withheld.map((name, i) => (
                      <span key={name}>
                        {i > 0 ? ", " : ""}
                        <code>{name}</code>
                      </span>
                    ))}{" "}
                    from Lathe&apos;s environment (sandbox.denyEnv, and Lathe&apos;s own keys): a command
                    finds {sandbox.env.withheld.length > 1 ? "them" : "it"} empty. An MCP server that needs
                    one names it in its own allowEnv.
                  </>
                )}
              </p>
              {sandbox.warnings.map((w) => (
                <p key={w} className="notice">
                  {w}
                </p>
              ))}
              {!sandbox.enabledInSettings && sandbox.machine.active ? (
                <p className="muted">
                  This machine can run it: it is turned off in your settings (sandbox.enabled).
                </p>
              ) : null}
              {mismatch ? (
                <p className="notice">
                  The folder&apos;s engine started with the sandbox {report.engine.active ? "on" : "off"};
                  reopen the folder to use what this check found.
                </p>
              ) : null}
            </div>
          </li>
        </ul>
      </section>
      <section className="panel settings-card" aria-labelledby="checks-heading">
        <div className="panel-head">
          <h2 id="checks-heading">What Lathe needs from this machine</h2>
          <span className={`badge ${report.healthy ? "badge-read" : "badge-error"}`}>
            {report.healthy ? "healthy" : "something is missing"}
          </span>
        </div>
        <ul className="checks" aria-label="Checks">
          {report.checks.map((check) => (
            <li key={check.name} className="check-item" aria-label={check.name}>
              <span
                className={`badge ${check.ok ? "badge-read" : check.required ? "badge-error" : "badge-muted"}`}
              >
                {check.ok ? "ok" : check.required ? "missing" : "optional"}
              </span>
              <span className="check-name">{check.name}</span>
              <span className="muted check-detail">{check.detail}</span>
              {check.fix && !check.ok ? <span className="check-fix">Fix: {check.fix}</span> : null}
            </li>
          ))}
        </ul>
        <p className="muted">
          The same report in a terminal: <code>lathe doctor</code> (<code>--json</code> for scripts).
        </p>
      </section>
    </div>
  );
}
