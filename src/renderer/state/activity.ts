import type { ToolOrigin } from "../../shared/api-contract.ts";
import type { ToolFinished, ToolPhase, ToolStarted } from "../../shared/push-events.ts";

/** One tool call in the live activity list. */
export interface ActivityEntry {
  callId: string;
  toolId: string;
  origin: ToolOrigin | undefined;
  /** As the engine reported them: secrets redacted. */
  args: unknown;
  startedAt: number;
  /** running → output (it ran), error (it ran and failed, or was invalid) or denied (a policy stage refused it). */
  status: "running" | "output" | "error" | "denied";
  /**
   * While it is "running", what it waits for instead, when it does: `queued` behind calls made
   * before it, `awaiting-approval` for a person's answer.
   */
  waiting?: "queued" | "awaiting-approval" | undefined;
  durationMs: number | undefined;
  /** Why it was denied, or the error text. */
  detail: string | undefined;
}

/** The most calls the list keeps; older ones drop off the end. */
export const ACTIVITY_LIMIT = 200;

function fromStarted(event: ToolStarted): ActivityEntry {
  return {
    callId: event.callId,
    toolId: event.toolId,
    origin: event.origin,
    args: event.args,
    startedAt: event.startedAt,
    status: "running",
    durationMs: undefined,
    detail: undefined,
  };
}

/** A call started: it goes on top (the list is newest first). */
export function startActivity(list: readonly ActivityEntry[], event: ToolStarted): ActivityEntry[] {
  if (list.some((entry) => entry.callId === event.callId)) return [...list];
  return [fromStarted(event), ...list].slice(0, ACTIVITY_LIMIT);
}

/** A call waits (queued, for its approval) or, having waited, runs. */
export function phaseActivity(list: readonly ActivityEntry[], event: ToolPhase): ActivityEntry[] {
  const waiting = event.phase === "running" ? undefined : event.phase;
  return list.map((entry) =>
    entry.callId === event.callId && entry.status === "running" ? { ...entry, waiting } : entry,
  );
}

/** What an entry's badge says it is doing now: its status, or what it waits for. */
export function activityState(
  entry: ActivityEntry,
): ActivityEntry["status"] | "queued" | "awaiting-approval" {
  return entry.status === "running" && entry.waiting ? entry.waiting : entry.status;
}

/** A call finished: its entry gets the outcome, the duration and, when refused, the reason. */
export function finishActivity(list: readonly ActivityEntry[], event: ToolFinished): ActivityEntry[] {
  const denial = event.decisions.find((decision) => decision.outcome === "deny");
  const envelope = event.envelope;
  const finished: Partial<ActivityEntry> = {
    waiting: undefined,
    status: envelope.type === "output" ? "output" : denial ? "denied" : "error",
    durationMs: envelope.metadata.duration_ms,
    detail: envelope.type === "error" ? (denial?.reason ?? envelope.error_text) : undefined,
    // The finished event carries the validated arguments (still redacted).
    args: event.args,
  };
  const index = list.findIndex((entry) => entry.callId === event.callId);
  if (index === -1) return [{ ...fromStarted(event), ...finished }, ...list].slice(0, ACTIVITY_LIMIT);
  return list.map((entry, i) => (i === index ? { ...entry, ...finished } : entry));
}
