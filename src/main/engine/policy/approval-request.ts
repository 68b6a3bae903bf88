import type { ToolOrigin } from "../tools/contract.ts";

/** What a host shows a person when a call needs approval: nothing truncated. */
export interface ApprovalRequest {
  id: string;
  sessionId: string;
  toolId: string;
  /** The caller's id for the call (an agent's: the model's tool call id), when it gave one. */
  toolCallId?: string;
  origin: ToolOrigin;
  /** The full validated arguments (the whole command for bash). */
  args: unknown;
  approvalKey: string;
  /** Why approval is needed: the rule, watchdog or parse reasons. */
  reasons: string[];
}

/**
 * once: this call; always: every call with this key for the rest of the session; reject: no;
 * unanswered: the person could not answer (the window that asked was closed): refused too.
 */
type ApprovalAnswer = "once" | "always" | "reject" | "unanswered";

/** A host that can ask a person. Headless hosts have none, so `ask` becomes `deny`. */
export type Approver = (request: ApprovalRequest, signal?: AbortSignal) => Promise<ApprovalAnswer>;
