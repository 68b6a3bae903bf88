import type { AuditEntry } from "../engine/index.ts";
import { parsedOrText } from "./recorded-json.ts";
import { shownPath, shownText } from "./shown-path.ts";

/** A stage that refused the call, if one did: then the call was denied (as `--outcome denied` counts it). */
function refusalOf(row: AuditEntry): { stage: string; reason: string } | undefined {
  const decisions = parsedOrText(row.decisionsJson);
  if (!Array.isArray(decisions)) {
    // As the store counts denials in such a row (see audit-log.ts).
    return row.decisionsJson.includes('"outcome":"deny"')
      ? { stage: "a stage", reason: `(the recorded decisions are not readable JSON) ${row.decisionsJson}` }
      : undefined;
  }
  const refusal = (decisions as Array<Record<string, unknown>>).find((d) => d["outcome"] === "deny");
  return refusal ? { stage: String(refusal["stage"]), reason: String(refusal["reason"]) } : undefined;
}

/** What the table says of a row's folder: rows from before Lathe recorded it have none. */
const folderOf = (row: AuditEntry): string =>
  row.root === null ? "(folder not recorded)" : shownPath(row.root);

/**
 * `lathe audit`'s rows as a table, one line a call: time (UTC), the folder (with `folders`, as
 * `--all` shows every folder's), session, tool, outcome, duration, the arguments' start; a
 * refused call adds a line with the stage that refused it and why. Every column but the
 * arguments is as wide as its widest cell, so the rows line up whatever the ids and paths.
 */
export function auditTable(rows: readonly AuditEntry[], options: { folders: boolean }): string {
  const cells = rows.map((r) => {
    const refusal = refusalOf(r);
    // A refused call's envelope is an error; it is listed as denied, as --outcome counts it.
    const outcome = refusal ? "denied" : r.outcome;
    const when = new Date(r.startedAt).toISOString().replace("T", " ").slice(0, 19);
    const row = [
      when,
      ...(options.folders ? [folderOf(r)] : []),
      shownText(r.sessionId),
      shownText(r.toolId),
      outcome,
      `${r.durationMs} ms`,
    ];
    return { row, args: shownText(r.argsJson.slice(0, 80)), refusal };
  });
  const widths = (cells[0]?.row ?? []).map((_, col) =>
    Math.max(...cells.map(({ row }) => (row[col] as string).length)),
  );
  const lines = cells.map(({ row, args, refusal }) => {
    const padded = row.map((cell, col) =>
      // The duration, a number, is right-aligned; the rest left.
      col === row.length - 1 ? cell.padStart(widths[col] as number) : cell.padEnd(widths[col] as number),
    );
    const head = `${padded.join("  ")}  ${args}`;
    return refusal ? `${head}\n    denied at ${refusal.stage}: ${shownText(refusal.reason)}` : head;
  });
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
