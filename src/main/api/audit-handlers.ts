import type { AuditEntry as SharedEntry, AuditPage } from "../../shared/audit-schemas.ts";
import type { AuditEntry, Engine } from "../engine/index.ts";
import type { ApiHandlers } from "./api-router.ts";

function parsed(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

type Decision = SharedEntry["decisions"][number];

function decisionsOf(text: string): Decision[] {
  const value = parsed(text, undefined);
  if (!Array.isArray(value)) {
    // An older Lathe's redaction could break the JSON: show the text rather than no decisions,
    // and count a refusal as the store's filter does (see audit-log.ts).
    return [
      {
        stage: "recorded",
        outcome: text.includes('"outcome":"deny"') ? "deny" : "unknown",
        reason: `The decisions were recorded in a form that cannot be read back: ${text}`,
      },
    ];
  }
  return value.map((d: Record<string, unknown>) => ({
    stage: String(d["stage"] ?? ""),
    outcome: String(d["outcome"] ?? ""),
    reason: String(d["reason"] ?? ""),
  }));
}

/** One audit row as the audit view shows it: arguments and decisions parsed, a refusal called denied. */
function auditEntry(row: AuditEntry): SharedEntry {
  const decisions = decisionsOf(row.decisionsJson);
  const denied = decisions.some((d) => d.outcome === "deny");
  return {
    id: row.id,
    callId: row.callId,
    sessionId: row.sessionId,
    toolId: row.toolId,
    ...(row.originLayer !== null && row.originKind !== null
      ? {
          origin: {
            layer: row.originLayer,
            kind: row.originKind,
            ...(row.originName !== null ? { name: row.originName } : {}),
          },
        }
      : {}),
    args: parsed(row.argsJson, row.argsJson),
    decisions,
    outcome: denied ? "denied" : row.outcome,
    envelopeHead: row.envelopeHead,
    durationMs: row.durationMs,
    startedAt: row.startedAt,
  };
}

/**
 * `audit.query`: a page of the open folder's trail in `$LATHE_HOME/lathe.db` (the calls made in
 * it, not other folders'), newest first, with the filters' choices in that folder.
 */
export function createAuditHandlers(engine: () => Promise<Engine>): Pick<ApiHandlers, "audit.query"> {
  return {
    "audit.query": async ({ sessionId, toolId, outcome, beforeId, limit }): Promise<AuditPage> => {
      const open = await engine();
      const root = open.root;
      const audit = open.audit();
      // One more than asked says whether an older page exists.
      const rows = audit.query({
        root,
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(toolId !== undefined ? { toolId } : {}),
        ...(outcome !== undefined ? { outcome } : {}),
        ...(beforeId !== undefined ? { beforeId } : {}),
        limit: limit + 1,
      });
      const more = rows.length > limit;
      const page = (more ? rows.slice(1) : rows).reverse();
      return { root, entries: page.map(auditEntry), more, ...audit.facets(root) };
    },
  };
}
