import type { ActivityEntry } from "../state/activity.ts";
import { useAppState } from "../state/store-context.tsx";
import { originLabel } from "./origin-label.ts";

const STATUS_LABEL: Record<ActivityEntry["status"], string> = {
  running: "running",
  output: "ok",
  error: "error",
  denied: "denied",
};

const STATUS_BADGE: Record<ActivityEntry["status"], string> = {
  running: "badge badge-running",
  output: "badge badge-output",
  error: "badge badge-error",
  denied: "badge badge-error",
};

function time(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString(undefined, { hour12: false });
}

/** Every tool call of this window's session as it happens: started, then how it ended. */
export function ActivityList() {
  const activity = useAppState((s) => s.activity);

  return (
    <section className="panel activity" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      {activity.length === 0 ? (
        <p className="muted">Tool calls appear here as they start and finish.</p>
      ) : (
        <ol className="activity-list" aria-label="Tool activity">
          {activity.map((entry) => (
            <li key={entry.callId} className={`activity-item activity-${entry.status}`}>
              <div className="activity-head">
                <code className="activity-tool">{entry.toolId}</code>
                <span className={STATUS_BADGE[entry.status]}>{STATUS_LABEL[entry.status]}</span>
                <span className="muted">
                  {time(entry.startedAt)}
                  {entry.durationMs !== undefined ? ` · ${Math.round(entry.durationMs)} ms` : ""}
                  {entry.origin ? ` · ${originLabel(entry.origin)}` : ""}
                </span>
              </div>
              <code className="activity-args">{JSON.stringify(entry.args)}</code>
              {entry.detail ? <p className="activity-detail">{entry.detail}</p> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
