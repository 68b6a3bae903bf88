import type { ApiHandlers } from "./api-router.ts";
import type { ChatRuns } from "./chat-runs.ts";
import type { SessionPrompts } from "./session-prompts.ts";
import type { AgentList, ChatHistory, ModelList } from "../../shared/chat-schemas.ts";

/** What the chat channels run against: a UI connection's runs, the host's chat questions, and its current engine. */
interface ChatTarget {
  runs: ChatRuns;
  questions: Pick<SessionPrompts, "answerQuestion" | "dismissQuestion">;
  history(sessionId: string): Promise<ChatHistory>;
  models(): Promise<ModelList>;
  agents(): Promise<AgentList>;
}

type ChatChannels =
  | "chat.send"
  | "chat.abort"
  | "chat.stopTool"
  | "chat.stopTask"
  | "chat.history"
  | "models.list"
  | "agents.list"
  | "question.respond";

/** The chat's channels: runs, their history, the pickers, and the person's answers to questions. */
export function createChatHandlers(target: ChatTarget): Pick<ApiHandlers, ChatChannels> {
  return {
    "chat.send": (request) => target.runs.send(request),
    "chat.abort": ({ runId }) => target.runs.abort(runId),
    "chat.stopTool": ({ runId, toolCallId }) => target.runs.stopTool(runId, toolCallId),
    "chat.stopTask": ({ taskId }) => target.runs.stopTask(taskId),
    "chat.history": ({ sessionId }) => target.history(sessionId),
    "models.list": () => target.models(),
    "agents.list": () => target.agents(),
    "question.respond": (request) =>
      "answers" in request
        ? target.questions.answerQuestion(request.id, request.answers)
        : target.questions.dismissQuestion(request.id),
  };
}
