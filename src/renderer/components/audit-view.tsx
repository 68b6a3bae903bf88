import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { useEffect, useState } from "react";
import type { AuditEntry, AuditOutcome } from "../../shared/audit-schemas.ts";
import { useAudit } from "../state/audit-context.tsx";
import { useSessions } from "../state/sessions-context.tsx";
import { useAppState } from "../state/store-context.tsx";
import { questionSummary } from "../state/tool-summary.ts";
import { formatDuration } from "./elapsed.tsx";
import { ErrorLine } from "./error-line.tsx";
import { originPhrase } from "./origin-label.ts";
import { OUTCOME_BADGE } from "./outcome-badge.ts";
import { OUTCOME_LABEL } from "./outcome-label.ts";

/** The outcome filter: each choice named by the word its rows' badges say. */
const OUTCOMES: ReadonlyArray<{ value: AuditOutcome | undefined; label: string }> = [
  { value: undefined, label: "all" },
  { value: "output", label: OUTCOME_LABEL.output },
  { value: "error", label: OUTCOME_LABEL.error },
  { value: "denied", label: OUTCOME_LABEL.denied },
];

const STAGE_LABEL: Record<string, string> = {
  capability: "Capability",
  rule: "Rules",
  watchdog: "Watchdog",
  approval: "Approval",
};

/** The call in one line: its command, path, pattern, URL, query or task, or the question it asks. */
function summary({ toolId, args }: AuditEntry): string {
  if (toolId === "question") return questionSummary(args);
  if (typeof args !== "object" || args === null) return JSON.stringify(args) ?? "";
  const record = args as Record<string, unknown>;
  const first =
    record["command"] ??
    record["path"] ??
    record["pattern"] ??
    record["url"] ??
    record["query"] ??
    record["description"];
  return typeof first === "string" ? first : JSON.stringify(args);
}

function time(epoch: number): string {
  const date = new Date(epoch);
  return date.toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

function AuditRow({ entry, sessionTitle }: { entry: AuditEntry; sessionTitle: string }) {
  const [open, setOpen] = useState(false);
  const refusal = entry.decisions.find((d) => d.outcome === "deny");
  return (
    <li className={`audit-row audit-${entry.outcome}`} aria-label={`${entry.toolId} call`}>
      <button type="button" className="audit-row-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="audit-time">{time(entry.startedAt)}</span>
        <code className="audit-tool">{entry.toolId}</code>
        <span className="audit-args">{escapeBidiControls(summary(entry))}</span>
        <span className={OUTCOME_BADGE[entry.outcome]} aria-label="Outcome">
          {OUTCOME_LABEL[entry.outcome]}
        </span>
        <span className="muted audit-duration">{formatDuration(entry.durationMs)}</span>
      </button>
      {refusal && !open ? (
        <p className="audit-refusal">
          Refused at {STAGE_LABEL[refusal.stage] ?? refusal.stage}: {escapeBidiControls(refusal.reason)}
        </p>
      ) : null}
      {open ? (
        <div className="audit-detail">
          <p className="muted">
            Session <strong>{sessionTitle}</strong> · call <code>{entry.callId}</code>
            {entry.origin ? ` · ${originPhrase(entry.origin)}` : ""}
          </p>
          <ol className="decision-chain" aria-label="Decisions">
            {entry.decisions.map((d, index) => (
              <li key={index} className={`decision decision-${d.outcome}`}>
                <span className="decision-stage">{STAGE_LABEL[d.stage] ?? d.stage}</span>
                <span className={`verdict verdict-${d.outcome}`}>{d.outcome}</span>
                <span className="decision-reason">{escapeBidiControls(d.reason)}</span>
              </li>
            ))}
          </ol>
          <h4>Arguments</h4>
          <pre className="code-block audit-json">
            {escapeBidiControls(JSON.stringify(entry.args, null, 2))}
          </pre>
          <h4>Envelope</h4>
          <pre className="code-block audit-json">{escapeBidiControls(entry.envelopeHead)}</pre>
        </div>
      ) : null}
    </li>
  );
}

/**
 * The Audit view: every tool call Lathe made (newest first) with its decision chain — capability
 * check, rules, watchdog, approval — filterable by session, tool and outcome; the same trail as
 * `lathe audit`.
 */
export function AuditView() {
  const filters = useAudit((s) => s.filters);
  const entries = useAudit((s) => s.entries);
  const more = useAudit((s) => s.more);
  const sessions = useAudit((s) => s.sessions);
  const tools = useAudit((s) => s.tools);
  const loading = useAudit((s) => s.loading);
  const error = useAudit((s) => s.error);
  const load = useAudit((s) => s.load);
  const showFolder = useAudit((s) => s.showFolder);
  const shownRoot = useAudit((s) => s.root);
  const loadMore = useAudit((s) => s.loadMore);
  const setFilters = useAudit((s) => s.setFilters);
  const titles = useSessions((s) => s.sessions);
  const root = useAppState((s) => s.project?.root);
  const titleOf = (id: string) => titles.find((s) => s.id === id)?.title ?? id;

  useEffect(() => {
    void showFolder(root);
  }, [showFolder, root]);
  const filtered =
    filters.sessionId !== undefined || filters.toolId !== undefined || filters.outcome !== undefined;

  return (
    <section className="panel audit-panel" aria-label="Audit trail">
      {shownRoot !== undefined ? (
        <p className="muted audit-folder" aria-label="Folder">
          Calls made in <code>{shownRoot}</code>
        </p>
      ) : null}
      <div className="audit-filters" role="group" aria-label="Filters">
        <label>
          Session
          <select
            value={filters.sessionId ?? ""}
            onChange={(event) => void setFilters({ sessionId: event.target.value || undefined })}
          >
            <option value="">All sessions</option>
            {sessions.map((id) => (
              <option key={id} value={id}>
                {titleOf(id)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool
          <select
            value={filters.toolId ?? ""}
            onChange={(event) => void setFilters({ toolId: event.target.value || undefined })}
          >
            <option value="">All tools</option>
            {tools.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <div className="segmented" role="radiogroup" aria-label="Outcome">
          {OUTCOMES.map((o) => (
            <button
              key={o.label}
              type="button"
              role="radio"
              aria-checked={filters.outcome === o.value}
              onClick={() => void setFilters({ outcome: o.value })}
            >
              {o.label}
            </button>
          ))}
        </div>
        <span className="settings-spacer" />
        <button type="button" disabled={loading} onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <ErrorLine message={error} />
      {/* After a failed load the view does not know whether there are calls: the error says so alone. */}
      {!loading && error === undefined && entries.length === 0 && shownRoot !== undefined ? (
        <p className="muted audit-empty">
          {filtered ? (
            <>
              No tool call in <code>{shownRoot}</code> matches these filters.
            </>
          ) : (
            <>
              No tool calls in <code>{shownRoot}</code> yet. Every call the agent or you make in this folder
              lands here.
            </>
          )}{" "}
          Other folders&apos; calls: <code>lathe audit --all</code>.
        </p>
      ) : null}
      <ol className="audit-list" aria-label="Calls">
        {entries.map((entry) => (
          <AuditRow key={entry.id} entry={entry} sessionTitle={titleOf(entry.sessionId)} />
        ))}
      </ol>
      {more ? (
        <button type="button" className="audit-more" disabled={loading} onClick={() => void loadMore()}>
          {loading ? "Loading…" : "Older calls"}
        </button>
      ) : null}
    </section>
  );
}
