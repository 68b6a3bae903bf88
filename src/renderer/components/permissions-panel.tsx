import { useEffect, useRef, useState } from "react";
import type { ApprovalMode, EditableScope, RuleCheck, ScopeRules } from "../../shared/permission-schemas.ts";
import { useAppState } from "../state/store-context.tsx";
import { useSettings } from "../state/settings-context.tsx";
import type { ProbeDraft } from "../state/settings-store.ts";
import { timeAgo } from "../state/time-ago.ts";
import { ErrorLine } from "./error-line.tsx";

const CAPABILITIES = ["fs.read", "fs.write", "net.fetch", "shell.run"];

const MODES: ReadonlyArray<{ value: ApprovalMode | "default"; label: string; hint: string }> = [
  { value: "default", label: "Default", hint: "Your settings name no mode: sessions ask." },
  { value: "ask", label: "Ask", hint: "A person answers every call the rules leave at ask." },
  {
    value: "allowlist",
    label: "Allowlist",
    hint: "A call passes when every command, path or host it touches matches an entry (bash:git log*); the rest ask.",
  },
  {
    value: "yolo",
    label: "Yolo",
    hint: "Nothing asks. Denies, capability refusals and the watchdog still apply, and without the OS sandbox bash still asks.",
  },
];

const SCOPE_LABEL: Record<EditableScope, string> = { user: "Your rules", project: "This folder's rules" };

function ApprovalsSection() {
  const view = useSettings((s) => s.view);
  const mode = useSettings((s) => s.modeDraft);
  const allowlist = useSettings((s) => s.allowlistDraft);
  const setMode = useSettings((s) => s.setModeDraft);
  const setAllowlist = useSettings((s) => s.setAllowlistDraft);
  const save = useSettings((s) => s.saveApprovals);
  const saving = useSettings((s) => s.saving);
  const saved = useSettings((s) => s.saved);
  const error = useSettings((s) => s.saveError);
  if (!view) return null;
  const { approvals } = view;
  const changed =
    mode !== (approvals.userMode ?? "default") || allowlist.trim() !== approvals.allowlist.join("\n").trim();
  return (
    <section className="panel settings-card" aria-labelledby="approvals-heading">
      <div className="panel-head">
        <h2 id="approvals-heading">Approvals</h2>
        <span className="muted">
          New sessions use <strong>{approvals.mode}</strong>
          {approvals.source === "project"
            ? " (set by this folder's settings)"
            : approvals.source === "user"
              ? " (your settings)"
              : ""}
        </span>
      </div>
      <fieldset className="mode-choice">
        <legend className="visually-hidden">Approval mode</legend>
        {MODES.map((m) => (
          <label key={m.value} className={`mode-option${mode === m.value ? " selected" : ""}`}>
            <input
              type="radio"
              name="approval-mode"
              checked={mode === m.value}
              onChange={() => setMode(m.value)}
            />
            <span className="mode-label">{m.label}</span>
            <span className="mode-hint">{m.hint}</span>
          </label>
        ))}
      </fieldset>
      <label className="allowlist-field">
        <span>
          Allowlist — one approval key per line (e.g. <code>bash:git log*</code>, <code>edit:docs/*</code>)
        </span>
        <textarea
          rows={3}
          value={allowlist}
          spellCheck={false}
          aria-label="Allowlist"
          onChange={(event) => setAllowlist(event.target.value)}
        />
      </label>
      <div className="settings-actions">
        {error?.part === "approvals" ? (
          <p role="alert" className="field-error">
            {error.message}
          </p>
        ) : saved === "approvals" ? (
          <p className="muted" role="status">
            Saved in your settings; new sessions use it.
          </p>
        ) : null}
        <button
          type="button"
          className="run"
          disabled={!changed || saving !== undefined}
          onClick={() => void save()}
        >
          {saving === "approvals" ? "Saving…" : "Save approvals"}
        </button>
      </div>
    </section>
  );
}

function rowNotes(scope: EditableScope, index: number, check: RuleCheck | undefined): string[] {
  if (!check) return [];
  const notes: string[] = [];
  for (const c of check.conflicts) {
    const mine = scope === "user" ? c.user : c.project;
    if (mine !== index) continue;
    const other = scope === "user" ? `folder rule ${c.project + 1}` : `your rule ${c.user + 1}`;
    notes.push(c.winner === scope ? `wins over ${other}: ${c.why}` : `overridden by ${other}: ${c.why}`);
  }
  return notes;
}

function ScopeEditor({ scope }: { scope: ScopeRules }) {
  const drafts = useSettings((s) => s.drafts[scope.scope]);
  const dirty = useSettings((s) => s.dirty[scope.scope]);
  const check = useSettings((s) => s.check);
  const update = useSettings((s) => s.updateRule);
  const add = useSettings((s) => s.addRule);
  const remove = useSettings((s) => s.removeRule);
  const revert = useSettings((s) => s.revert);
  const save = useSettings((s) => s.saveRules);
  const saving = useSettings((s) => s.saving);
  const saved = useSettings((s) => s.saved);
  const error = useSettings((s) => s.saveError);
  const name = scope.scope;
  // Rows added here whose Permission the person has not left yet: an empty one is not yet wrong
  // (they are about to type it), so its "name a tool" waits until they leave it empty or try to
  // save. Kept by row index, moved along as rows are removed.
  const [pristine, setPristine] = useState<readonly boolean[]>([]);
  useEffect(() => {
    if (!dirty) setPristine([]);
  }, [dirty]);
  const notYetWrong = (index: number, field: string | undefined) =>
    pristine[index] === true &&
    (field ?? "permission") === "permission" &&
    drafts[index]?.permission.trim() === "";
  const allProblems = (check?.problems ?? []).filter((p) => p.scope === name);
  const problems = allProblems.filter((p) => !notYetWrong(p.index, p.field));
  const verdict = check?.verdict;
  const label = SCOPE_LABEL[name];
  // Where the keyboard goes once a row is added or removed: the new row's Permission, the Remove
  // of the row that took a removed one's place (else the one above it), or Add rule once no row
  // is left. Add rule kept it below the table, and a removed row took it along to the page itself.
  const editor = useRef<HTMLElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<{ row: number; field: "permission" | "remove" } | "add" | undefined>(undefined);
  useEffect(() => {
    const next = focusNext.current;
    focusNext.current = undefined;
    if (next === undefined) return;
    if (next === "add") return addButton.current?.focus();
    const selector = next.field === "permission" ? 'input[aria-label="Permission"]' : "button.rule-remove";
    editor.current
      ?.querySelector<HTMLElement>(`.rules-table tbody > tr:nth-child(${next.row + 1}) ${selector}`)
      ?.focus();
  }, [drafts.length]);
  const addRow = () => {
    focusNext.current = { row: drafts.length, field: "permission" };
    setPristine((rows) => Object.assign([...rows], { [drafts.length]: true }));
    add(name);
  };
  const leftPermission = (index: number) =>
    setPristine((rows) => (rows[index] === true ? Object.assign([...rows], { [index]: false }) : rows));
  /** Save, unless a row added and left untouched is not a rule yet: then say so under it, and go there. */
  const trySave = () => {
    const waiting = allProblems.find((p) => notYetWrong(p.index, p.field));
    if (waiting === undefined) return void save(name);
    setPristine([]);
    editor.current
      ?.querySelector<HTMLElement>(
        `.rules-table tbody > tr:nth-child(${waiting.index + 1}) input[aria-label="Permission"]`,
      )
      ?.focus();
  };
  const removeRow = (index: number) => {
    setPristine((rows) => rows.filter((_, at) => at !== index));
    const left = drafts.length - 1;
    focusNext.current = left === 0 ? "add" : { row: Math.min(index, left - 1), field: "remove" };
    remove(name, index);
  };
  return (
    <section className="scope-editor" aria-label={label} ref={editor}>
      <div className="scope-head">
        <h3>{label}</h3>
        <code className="scope-file">{scope.file}</code>
        {scope.applies === "deny-only" ? (
          <span className="badge badge-write" title="Until you trust this folder, only its deny rules apply">
            only deny rules apply (not trusted)
          </span>
        ) : (
          <span className="badge badge-read">applies</span>
        )}
      </div>
      <ErrorLine message={scope.problem} />
      {drafts.length === 0 ? <p className="muted">No rules yet.</p> : null}
      {drafts.length > 0 ? (
        <table className="rules-table">
          <thead>
            <tr>
              <th>#</th>
              <th>Permission</th>
              <th>Pattern</th>
              <th>Action</th>
              <th>
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {drafts.map((rule, index) => {
              // Each problem is said under the field that is wrong (one about the row as a whole, under its first).
              const problemOf = (field: "permission" | "pattern" | "action") =>
                problems.find((p) => p.index === index && (p.field ?? "permission") === field);
              const permissionProblem = problemOf("permission");
              const patternProblem = problemOf("pattern");
              const actionProblem = problemOf("action");
              const decides = verdict?.decidedBy?.scope === name && verdict.decidedBy.index === index;
              const match = verdict?.matches.find((m) => m.scope === name && m.index === index);
              const notes = rowNotes(name, index, check);
              const ignored = name === "project" && scope.applies === "deny-only" && rule.action !== "deny";
              return (
                <tr
                  key={index}
                  aria-label={`${label} ${index + 1}`}
                  className={
                    [decides ? "rule-decides" : "", ignored ? "rule-ignored" : ""].join(" ").trim() ||
                    undefined
                  }
                >
                  <td className="muted">{index + 1}</td>
                  <td>
                    <input
                      type="text"
                      list="rule-permissions"
                      value={rule.permission}
                      aria-label="Permission"
                      aria-invalid={permissionProblem !== undefined}
                      spellCheck={false}
                      placeholder="bash, fs.read, *"
                      onChange={(event) => update(name, index, { permission: event.target.value })}
                      onBlur={() => leftPermission(index)}
                    />
                    {permissionProblem ? (
                      <p className="field-error rule-note">{permissionProblem.message}</p>
                    ) : null}
                  </td>
                  <td>
                    <input
                      type="text"
                      value={rule.pattern}
                      aria-label="Pattern"
                      aria-invalid={patternProblem !== undefined}
                      spellCheck={false}
                      placeholder="src/**, git *, npm run test:*"
                      onChange={(event) => update(name, index, { pattern: event.target.value })}
                    />
                    {patternProblem ? (
                      <p className="field-error rule-note">{patternProblem.message}</p>
                    ) : null}
                    {notes.map((note) => (
                      <p key={note} className="rule-note rule-conflict">
                        {note}
                      </p>
                    ))}
                    {decides ? <p className="rule-note rule-decides-note">decides the test call</p> : null}
                    {match && !decides ? (
                      <p className="rule-note muted">
                        {match.ignored ? `matches, but ${match.ignored}` : "matches the test call"}
                      </p>
                    ) : null}
                  </td>
                  <td>
                    <select
                      value={rule.action}
                      aria-label="Action"
                      aria-invalid={actionProblem !== undefined}
                      className={`action-${rule.action}`}
                      onChange={(event) =>
                        update(name, index, { action: event.target.value as typeof rule.action })
                      }
                    >
                      <option value="allow">allow</option>
                      <option value="ask">ask</option>
                      <option value="deny">deny</option>
                    </select>
                    {actionProblem ? <p className="field-error rule-note">{actionProblem.message}</p> : null}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button-reject rule-remove"
                      aria-label={`Remove rule ${index + 1}`}
                      onClick={() => removeRow(index)}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <div className="settings-actions">
        <button type="button" ref={addButton} onClick={addRow} disabled={scope.problem !== undefined}>
          Add rule
        </button>
        <span className="settings-spacer" />
        {error?.part === name ? (
          <p role="alert" className="field-error">
            {error.message}
          </p>
        ) : saved === name ? (
          <p className="muted" role="status">
            Saved to {scope.file}.
          </p>
        ) : null}
        <button type="button" disabled={!dirty || saving !== undefined} onClick={() => void revert(name)}>
          Revert
        </button>
        <button
          type="button"
          className="run"
          disabled={!dirty || saving !== undefined || problems.length > 0 || scope.problem !== undefined}
          onClick={trySave}
        >
          {saving === name ? "Saving…" : `Save ${name === "user" ? "your" : "this folder's"} rules`}
        </button>
      </div>
    </section>
  );
}

const PROBE_KINDS: ReadonlyArray<{
  value: ProbeDraft["capability"];
  label: string;
  placeholder: string;
  tool: string;
}> = [
  { value: "shell.run", label: "Run a command", placeholder: "git push origin main", tool: "bash" },
  { value: "fs.write", label: "Write a file", placeholder: "src/index.ts", tool: "write" },
  { value: "fs.read", label: "Read a file", placeholder: ".env", tool: "read" },
  { value: "net.fetch", label: "Fetch from a host", placeholder: "api.example.com", tool: "web_fetch" },
];

/** Try a call against the rules as edited: which rule of which scope decides it. */
function Probe() {
  const probe = useSettings((s) => s.probe);
  const setProbe = useSettings((s) => s.setProbe);
  const verdict = useSettings((s) => s.check?.verdict);
  const kind = PROBE_KINDS.find((k) => k.value === probe.capability) ?? PROBE_KINDS[0]!;
  return (
    <section className="probe" aria-label="Which rule decides">
      <h3>Which rule decides?</h3>
      <div className="probe-row">
        <select
          aria-label="Kind of call"
          value={probe.capability}
          onChange={(event) => {
            const next = PROBE_KINDS.find((k) => k.value === event.target.value) ?? kind;
            setProbe({ capability: next.value, toolId: next.tool });
          }}
        >
          {PROBE_KINDS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
        <input
          type="text"
          aria-label="Tool"
          className="probe-tool"
          list="rule-permissions"
          value={probe.toolId}
          spellCheck={false}
          placeholder="tool"
          onChange={(event) => setProbe({ toolId: event.target.value })}
        />
        <input
          type="text"
          aria-label="Path, command or host"
          className="probe-value"
          value={probe.value}
          spellCheck={false}
          placeholder={kind.placeholder}
          onChange={(event) => setProbe({ value: event.target.value })}
        />
      </div>
      {verdict && probe.value.trim() !== "" ? (
        <p className="probe-verdict" role="status" aria-label="Verdict">
          <span className={`verdict verdict-${verdict.action}`}>{verdict.action}</span>
          {verdict.decidedBy
            ? ` — ${verdict.decidedBy.scope === "user" ? "your" : "this folder's"} rule ${verdict.decidedBy.index + 1} decides.`
            : " — no rule matches, so a person is asked."}
          <span className="muted probe-explanation"> {verdict.explanation}</span>
        </p>
      ) : (
        <p className="muted">Type a command, path or host to see which rule decides it, before you save.</p>
      )}
    </section>
  );
}

function RulesSection() {
  const view = useSettings((s) => s.view);
  const tools = useAppState((s) => s.tools);
  if (!view) return null;
  return (
    <section className="panel settings-card" aria-labelledby="rules-heading">
      <div className="panel-head">
        <h2 id="rules-heading">Permission rules</h2>
      </div>
      <p className="muted">
        The most specific pattern wins; then a rule naming the tool over one naming a capability or{" "}
        <code>*</code>; then the stricter action; then the more authoritative scope (this folder over you). A
        deny in an agent&apos;s manifest is final. A path pattern without a slash (<code>*.pem</code>,{" "}
        <code>.env</code>) names a file at any depth, as in <code>.gitignore</code>; <code>./*.pem</code> only
        at the top.
      </p>
      <datalist id="rule-permissions">
        <option value="*" />
        {CAPABILITIES.map((c) => (
          <option key={c} value={c} />
        ))}
        {tools.map((t) => (
          <option key={t.id} value={t.id} />
        ))}
      </datalist>
      <Probe />
      {view.scopes.map((scope) => (
        <ScopeEditor key={scope.scope} scope={scope} />
      ))}
    </section>
  );
}

function SessionAnswers() {
  const view = useSettings((s) => s.view);
  const revoke = useSettings((s) => s.revoke);
  const error = useSettings((s) => s.saveError);
  if (!view) return null;
  return (
    <section className="panel settings-card" aria-labelledby="answers-heading">
      <div className="panel-head">
        <h2 id="answers-heading">Sessions&apos; “always” answers</h2>
      </div>
      <p className="muted">
        What you allowed “for this session” in this folder&apos;s chats. Revoke one and the next such call
        asks again.
      </p>
      {error?.part === "revoke" ? (
        <p role="alert" className="field-error">
          {error.message}
        </p>
      ) : null}
      {view.sessions.length === 0 ? <p className="muted">No session keeps an “always” answer.</p> : null}
      <ul className="answers-list">
        {view.sessions.map((session) => (
          <li key={session.sessionId} className="answers-session" aria-label={`Session ${session.title}`}>
            <div className="answers-head">
              <strong>{session.title}</strong>
              <code className="muted">{session.sessionId}</code>
              {session.running ? <span className="badge badge-running">running</span> : null}
              <span className="settings-spacer" />
              <button
                type="button"
                className="button-reject"
                disabled={session.running}
                onClick={() => void revoke(session.sessionId)}
              >
                Revoke all
              </button>
            </div>
            <ul>
              {session.approvals.map((a) => (
                <li key={`${a.tool}\u0000${a.key}`} className="answer-item">
                  <code>{a.key}</code>
                  <span className="muted">{timeAgo(a.createdAt, Date.now())}</span>
                  <button
                    type="button"
                    className="link-button"
                    disabled={session.running}
                    aria-label={`Revoke ${a.key}`}
                    onClick={() => void revoke(session.sessionId, { tool: a.tool, key: a.key })}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Settings → Permissions: the approval mode, the rules of each scope in an editor the host checks
 * as it changes (invalid rows, which scope wins a conflict, which rule decides a call you type),
 * saved into the scope's settings file; and the sessions' “always” answers, to revoke.
 */
export function PermissionsPanel() {
  const view = useSettings((s) => s.view);
  const loadError = useSettings((s) => s.loadError);
  const load = useSettings((s) => s.load);
  const drafts = useSettings((s) => s.drafts);
  const probe = useSettings((s) => s.probe);
  const runCheck = useSettings((s) => s.runCheck);
  const root = useAppState((s) => s.project?.root);

  useEffect(() => {
    void load();
  }, [load, root]);

  useEffect(() => {
    const timer = setTimeout(() => void runCheck(), 200);
    return () => clearTimeout(timer);
  }, [drafts, probe, runCheck]);

  if (!view) {
    return (
      <p
        className={`view-message ${loadError ? "field-error" : "muted"}`}
        role={loadError ? "alert" : undefined}
      >
        {loadError ?? "Loading…"}
      </p>
    );
  }
  return (
    <div className="settings-stack">
      <ApprovalsSection />
      <RulesSection />
      <SessionAnswers />
    </div>
  );
}
