import type { ResolvedPlan } from "./call-plan.ts";

/** The stages of the policy a call passes before it runs, in order. */
type Stage = "capability" | "rule" | "watchdog" | "approval";

/** What one stage decided for a call, and why (events and the audit trail carry them). */
export interface StageRecord {
  stage: Stage;
  outcome: "allow" | "deny" | "ask";
  reason: string;
}

/**
 * The policy's decision on one call: every stage's record, and the plan it checked (`accesses`
 * is empty when the call was refused at the capability check).
 */
export interface PolicyResult extends ResolvedPlan {
  allowed: boolean;
  stages: StageRecord[];
  /** For a refusal: what the model (and the user) is told, including how to allow it. */
  errorText?: string;
}
