import { escapeBidiControls } from "../../shared/bidi-controls.ts";
import { activityState } from "../state/activity.ts";
import { useAppState } from "../state/store-context.tsx";
import { originLabel } from "./origin-label.ts";
import { OUTCOME_BADGE } from "./outcome-badge.ts";
import { OUTCOME_LABEL } from "./outcome-label.ts";

type State = ReturnType<typeof activityState>;

const STATUS_LABEL: Record<State, string> = {
  queued: "queued",
  "awaiting-approval": "awaiting approval",
  running: "running",
  output: OUTCOME_LABEL.output,
  error: OUTCOME_LABEL.error,
  denied: OUTCOME_LABEL.denied,
};

const STATUS_BADGE: Record<State, string> = {
  queued: "badge badge-muted",
  "awaiting-approval": "badge badge-write",
  running: "badge badge-running",
  output: OUTCOME_BADGE.output,
  error: OUTCOME_BADGE.error,
  denied: OUTCOME_BADGE.denied,
};

function time(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString(undefined, { hour12: false });
}

/**
 * Every tool call of this window's session as it happens: started (or what it waits for: queued
 * behind earlier calls, awaiting approval), then how it ended.
 */
export function ActivityList() {
  const activity = useAppState((s) => s.activity);

  return (
    <section className="panel activity" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      {activity.length === 0 ? (
        <p className="muted">Tool calls appear here as they start and finish.</p>
      ) : (
        <ol className="activity-list" aria-label="Tool activity">
          {activity.map((entry) => {
            const state = activityState(entry);
            return (
              <li key={entry.callId} className={`activity-item activity-${state}`}>
                <div className="activity-head">
                  <code className="activity-tool">{entry.toolId}</code>
                  <span className={STATUS_BADGE[state]} aria-label="Status">
                    {STATUS_LABEL[state]}
                  </span>
                  <span className="muted">
                    {time(entry.startedAt)}
                    {entry.durationMs !== undefined ? ` · ${Math.round(entry.durationMs)} ms` : ""}
                    {entry.origin ? ` · ${originLabel(entry.origin)}` : ""}
                  </span>
                </div>
                <code className="activity-args">{escapeBidiControls(JSON.stringify(entry.args))}</code>
                {entry.detail ? <p className="activity-detail">{escapeBidiControls(entry.detail)}</p> : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
