import type { AuditOutcome } from "../../shared/audit-schemas.ts";

/**
 * The badge each way a tool call ended wears, in every view that shows it (a chat's tool card, the
 * Activity list, Run a tool's result, the Audit trail), so one outcome is one colour everywhere:
 * ok in the read tone, error in red, and denied in the warning (amber) tone: the call was
 * refused, nothing broke. Its words are OUTCOME_LABEL's.
 */
export const OUTCOME_BADGE: Readonly<Record<AuditOutcome, string>> = {
  output: "badge badge-output",
  error: "badge badge-error",
  denied: "badge badge-denied",
};
