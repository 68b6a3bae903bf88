import type { ApprovalRequest } from "../../shared/push-events.ts";

/** A prompt arrived: it waits behind the ones already there (the dialog shows the first). */
export function enqueueApproval(
  queue: readonly ApprovalRequest[],
  request: ApprovalRequest,
): ApprovalRequest[] {
  if (queue.some((waiting) => waiting.id === request.id)) return [...queue];
  return [...queue, request];
}

/** A prompt settled (answered here, or its call ended): it leaves the queue. */
export function removeApproval(queue: readonly ApprovalRequest[], id: string): ApprovalRequest[] {
  return queue.filter((waiting) => waiting.id !== id);
}
