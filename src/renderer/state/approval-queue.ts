import type { ApprovalRequest } from "../../shared/push-events.ts";

/** A prompt arrived: it waits behind the ones already there (the dialog shows the first). */
export function enqueueApproval(
  queue: readonly ApprovalRequest[],
  request: ApprovalRequest,
): ApprovalRequest[] {
  if (queue.some((waiting) => waiting.id === request.id)) return [...queue];
  return [...queue, request];
}

/** A prompt settled (answered here or in another tab, or its call ended): it leaves the queue. */
export function removeApproval(queue: readonly ApprovalRequest[], id: string): ApprovalRequest[] {
  return queue.filter((waiting) => waiting.id !== id);
}

/**
 * The prompts this page shows while `sessionId` is the chat on screen: a chat run's prompts go to
 * every tab, and each shows those of the session it has open (the run's, or a subagent's own when
 * that is open); a prompt of this page's own call (no `runSessionId`) shows whatever is open.
 */
export function promptsFor<P extends { sessionId: string; runSessionId?: string | undefined }>(
  queue: readonly P[],
  sessionId: string,
): P[] {
  return queue.filter(
    (prompt) =>
      prompt.runSessionId === undefined ||
      prompt.runSessionId === sessionId ||
      prompt.sessionId === sessionId,
  );
}

/**
 * Whether the chat call `toolCallId` waits for a person's answer: a prompt of it (an approval, a
 * question) is in the queue.
 */
export function waitsOnPrompt(
  queue: readonly { toolCallId?: string | undefined }[],
  toolCallId: string,
): boolean {
  return queue.some((waiting) => waiting.toolCallId === toolCallId);
}
