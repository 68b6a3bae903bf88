import { shownPath } from "./shown-path.ts";
import { NOT_REACHED } from "../engine/light.ts";
import type {
  CheckpointSummary,
  PlannedPath,
  RestoreOutcome,
  RestorePlan,
  SkippedPath,
  StoredPrompt,
} from "../engine/index.ts";

/** How `lathe checkpoints`, `restore` and `rewind` print what they did or would do. */

function when(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

function quoted(text: string, max = 60): string {
  const line = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

function files(c: CheckpointSummary): string {
  if (c.files.length === 0) return "(no files)";
  return c.files
    .map((f) => {
      // A path turned from a file into a folder (or back) says so, not just "modified".
      const change =
        f.became === undefined
          ? f.change
          : `was a ${f.became === "folder" ? "file" : "folder"}, became a ${f.became}`;
      return `${shownPath(f.path)}${f.type === "folder" ? "/" : ""} (${change}${f.note ? ", previous content not kept" : ""})`;
    })
    .join(", ");
}

/** The checkpoints of a session, oldest first, under the prompts they followed. */
export function formatCheckpointList(
  sessionId: string,
  list: readonly CheckpointSummary[],
  prompts: readonly StoredPrompt[],
): string {
  if (list.length === 0) return `Session ${sessionId} has no checkpoints yet.\n`;
  const lines = [
    `${list.length} checkpoint${list.length === 1 ? "" : "s"} in session ${sessionId}, oldest first:`,
  ];
  const shown = new Set<number>();
  const showPromptsUpTo = (seq: number): void => {
    for (const p of prompts) {
      if (p.seq > seq || shown.has(p.seq)) continue;
      shown.add(p.seq);
      lines.push(`prompt ${p.seq}: ${quoted(p.text)}`);
    }
  };
  for (const c of list) {
    const prompt =
      c.kind === "tool" && c.runId !== null ? prompts.find((p) => p.runId === c.runId) : undefined;
    if (prompt) showPromptsUpTo(prompt.seq);
    const status =
      c.restoredBy !== null
        ? `  [restored by ${c.restoredBy}]`
        : c.undoes.length > 0
          ? `  [undoes ${c.undoes.join(", ")}]`
          : "";
    lines.push(
      `  ${String(c.id).padStart(4)}  ${when(c.createdAt)}  ${c.tool.padEnd(7)} ${files(c)}${status}`,
    );
  }
  showPromptsUpTo(Infinity);
  lines.push(
    `Restore one: lathe restore ID --session ${sessionId} (--dry-run previews). Go back to before a prompt: lathe rewind --session ${sessionId} --before N.`,
  );
  return `${lines.join("\n")}\n`;
}

/** The checkpoints as JSON, for scripts: one array, times in ISO 8601. */
export function checkpointListJson(list: readonly CheckpointSummary[]): string {
  return `${JSON.stringify(
    list.map((c) => ({
      id: c.id,
      session_id: c.sessionId,
      kind: c.kind,
      tool: c.tool,
      tool_call_id: c.toolCallId,
      call_id: c.callId,
      run_id: c.runId,
      message: c.messageSeq,
      time: new Date(c.createdAt).toISOString(),
      restored_by: c.restoredBy,
      undoes: c.undoes,
      paths: c.files,
    })),
    null,
    2,
  )}\n`;
}

function pathLine(p: PlannedPath, applied: boolean): string {
  const name = `${shownPath(p.path)}${p.type === "folder" ? "/" : ""}`;
  let problem = "";
  if (p.unavailable) problem = `  CANNOT RESTORE: ${p.unavailable}`;
  else if (p.conflict && applied) problem = `  (overwritten: ${p.conflict})`;
  else if (p.conflict) problem = `  CONFLICT: ${p.conflict}`;
  return `  ${p.action.padEnd(9)} ${name}${problem}`;
}

/**
 * A plan path by path (paths already as they were are left out); `done` lists an applied
 * outcome, whose skipped paths are shown apart.
 */
export function formatPlan(plan: RestorePlan, done?: RestoreOutcome): string {
  const left = new Set([...(done?.skipped ?? []), ...(done?.failed ?? [])].map((s) => s.path));
  const paths = plan.paths.filter(
    (p) => (p.action !== "none" || p.unavailable || p.conflict) && !left.has(p.path),
  );
  // Paths left or failed are listed after, by formatLeftovers: they are not "as they were".
  if (paths.length === 0)
    return left.size > 0 ? "" : "  (no file changes: every path already is as it was)\n";
  return `${paths.map((p) => pathLine(p, done !== undefined)).join("\n")}\n`;
}

function skippedLines(skipped: readonly SkippedPath[], label: string): string {
  return skipped.map((s) => `  ${label} ${shownPath(s.path)}: ${s.reason}`).join("\n");
}

/** What a refused restore needs, for stderr: `what` (e.g. "checkpoint 2 (bash) was not restored"), each blocked path, what to do. */
export function blockedMessage(what: string, outcome: RestoreOutcome): string {
  const conflicts = outcome.blocked.filter((p) => p.unavailable === undefined);
  const unavailable = outcome.blocked.filter((p) => p.unavailable !== undefined);
  const parts: string[] = [];
  if (conflicts.length > 0) {
    parts.push(
      `${conflicts.length} path${conflicts.length === 1 ? "" : "s"} changed since the checkpoint:\n${conflicts.map((p) => `  ${shownPath(p.path)}: ${p.conflict ?? ""}`).join("\n")}`,
    );
  }
  if (unavailable.length > 0) {
    parts.push(
      `${unavailable.length} path${unavailable.length === 1 ? "" : "s"} cannot be restored:\n${unavailable.map((p) => `  ${shownPath(p.path)}: ${p.unavailable ?? ""}`).join("\n")}`,
    );
  }
  return `${what}: ${parts.join("\n")}
Nothing was changed. Run again with --force to overwrite those changes${unavailable.length > 0 ? " and leave what cannot be restored as it is" : ""} (what is overwritten is kept in a new checkpoint you can restore); --dry-run previews.`;
}

/** How many paths a stopped restore's summary names before "and N more". */
const UNREACHED_SHOWN = 5;

/** The paths a stopped restore did not reach, in one line (there may be thousands). */
function unreachedLine(paths: readonly string[]): string {
  if (paths.length === 0) return "";
  const shown = paths.slice(0, UNREACHED_SHOWN).map(shownPath).join(", ");
  const more = paths.length > UNREACHED_SHOWN ? `, and ${paths.length - UNREACHED_SHOWN} more` : "";
  return `  NOT REACHED ${paths.length} path${paths.length === 1 ? "" : "s"}, left as they were: ${shown}${more}`;
}

/** After an applied restore: what was left alone, what failed, and what a stop did not reach. */
export function formatLeftovers(outcome: RestoreOutcome): string {
  const failed = outcome.failed.filter((f) => f.reason !== NOT_REACHED);
  const unreached = outcome.failed.filter((f) => f.reason === NOT_REACHED).map((f) => f.path);
  const lines = [
    skippedLines(outcome.skipped, "left"),
    skippedLines(failed, "FAILED"),
    unreachedLine(unreached),
  ].filter(Boolean);
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
