import type { ApprovalBroker } from "./approval-broker.ts";
import type { ApiHandlers } from "./api-router.ts";

/** `approval.respond`: the person's answer to the prompt on screen, for this UI's broker only. */
export function createApprovalHandlers(broker: ApprovalBroker): Pick<ApiHandlers, "approval.respond"> {
  return {
    "approval.respond": ({ id, answer }) => broker.respond(id, answer),
  };
}
