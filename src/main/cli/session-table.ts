import type { CallSessionSummary, SessionSummary } from "../engine/index.ts";
import { shownText } from "./shown-path.ts";

/**
 * A session as `lathe session list` shows it: a conversation (`lathe run`, the app), or a
 * session of tool calls alone (`lathe call --session`, `lathe batch --session`).
 */
export type ListedSession =
  (SessionSummary & { kind: "conversation" }) | (CallSessionSummary & { kind: "calls" });

/** Longest model shown in the table: a GGUF file's path is cut from the left, keeping its name. */
const MODEL_WIDTH = 32;

/** What a call session's row says of how it was made, in place of a model. */
export const CALL_SESSION_MARK = "lathe call --session";

const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

function shortModel(model: string): string {
  return model.length <= MODEL_WIDTH ? model : `…${model.slice(model.length - MODEL_WIDTH + 1)}`;
}

const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * Both kinds in one list, newest first (ties by id), at most `limit`: each list given is
 * already the newest `limit` of its kind.
 */
export function mergeSessions(
  conversations: readonly SessionSummary[],
  calls: readonly CallSessionSummary[],
  limit: number,
): ListedSession[] {
  const all: ListedSession[] = [
    ...conversations.map((s) => ({ ...s, kind: "conversation" as const })),
    ...calls.map((s) => ({ ...s, kind: "calls" as const })),
  ];
  all.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return all.slice(0, limit);
}

/** The title cell: a task's says whose task it is; a call session's what it holds, closed or not. */
function titleCell(s: ListedSession): string {
  if (s.kind === "conversation") {
    return `${s.parentId ? `(task of ${s.parentId}) ` : ""}${s.title || "(no prompt yet)"}`;
  }
  const holds = `${count(s.calls, "tool call")}${s.checkpoints > 0 ? `, ${count(s.checkpoints, "checkpoint")}` : ""}`;
  const state = s.closedAt !== undefined ? "closed; " : "";
  return s.title ? `${s.title} (${state}${holds})` : `(${state}${holds})`;
}

/** The sessions as a table: id, last update (UTC), model (or how it was made), title. */
export function sessionTable(sessions: readonly ListedSession[]): string {
  const rows = sessions.map((s) => [
    s.id,
    when(s.updatedAt),
    s.kind === "conversation" ? shortModel(s.model) : CALL_SESSION_MARK,
    // A title is a person's or a model's text: no control or reordering character reaches the terminal.
    shownText(titleCell(s)),
  ]);
  const header = ["ID", "UPDATED (UTC)", "MODEL", "TITLE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return `${[header, ...rows].map(line).join("\n")}\n`;
}

/**
 * One session as a line of `--json`: the same keys for both kinds (a call session has no agent
 * or model: ""), and `kind`; a call session adds `calls`, `checkpoints` and `closed_at`.
 */
export function sessionJson(s: ListedSession): string {
  const common = {
    id: s.id,
    kind: s.kind,
    title: s.title,
    title_source: s.titleSource,
    agent: s.kind === "conversation" ? s.agent : "",
    model: s.kind === "conversation" ? s.model : "",
    parent_id: (s.kind === "conversation" ? s.parentId : undefined) ?? null,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
  if (s.kind === "conversation") return JSON.stringify(common);
  return JSON.stringify({
    ...common,
    calls: s.calls,
    checkpoints: s.checkpoints,
    closed_at: s.closedAt !== undefined ? new Date(s.closedAt).toISOString() : null,
  });
}
