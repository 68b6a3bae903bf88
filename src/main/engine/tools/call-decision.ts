import type { ResolvedAccess } from "./call-plan.ts";

/** The stages of the policy a call passes before it runs, in order. */
export type Stage = "capability" | "rule" | "watchdog" | "approval";

/** What one stage decided for a call, and why (events and the audit trail carry them). */
export interface StageRecord {
  stage: Stage;
  outcome: "allow" | "deny" | "ask";
  reason: string;
}

/** The policy's decision on one call: every stage's record, and the accesses it checked. */
export interface PolicyResult {
  allowed: boolean;
  stages: StageRecord[];
  /** The checked accesses (empty when refused at the capability check). */
  accesses: ResolvedAccess[];
  /** For a refusal: what the model (and the user) is told, including how to allow it. */
  errorText?: string;
}
