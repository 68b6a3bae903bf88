import type { AuditOutcome } from "../../shared/audit-schemas.ts";

/**
 * How a tool call ended, in the one word every view says it with: a chat's tool card, the
 * Activity list, Run a tool's result and the Audit trail. The same call reads the same in each.
 */
export const OUTCOME_LABEL: Readonly<Record<AuditOutcome, string>> = {
  output: "ok",
  error: "error",
  denied: "denied",
};
