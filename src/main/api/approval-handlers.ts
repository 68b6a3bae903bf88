import type { ApprovalBroker } from "./approval-broker.ts";
import type { ApiHandlers } from "./api-router.ts";
import type { SessionPrompts } from "./session-prompts.ts";

/**
 * `approval.respond`: the person's answer to a prompt on screen: one of a chat run's (any UI
 * showing its session may answer it), or one of this UI's own calls (only this UI may).
 */
export function createApprovalHandlers(
  broker: ApprovalBroker,
  chats: SessionPrompts,
): Pick<ApiHandlers, "approval.respond"> {
  return {
    "approval.respond": ({ id, answer }) =>
      chats.ownsApproval(id) ? chats.respondApproval(id, answer) : broker.respond(id, answer),
  };
}
