import type { ChatHistory, ChatTurn } from "../../shared/chat-schemas.ts";
import type { BackgroundTask } from "../../shared/task-schemas.ts";
import { RunEventSchema } from "../../shared/run-event-schema.ts";
import type { Engine } from "../engine/index.ts";
import { ApiError } from "./api-error.ts";
import type { LiveRunView } from "./live-runs.ts";

/**
 * A recorded session as the chat redraws it: one turn per run (the person's prompt, then the run's
 * recorded events, in order), and the session's todo list. Read from the conversation store, so
 * nothing is called again. An event the contract does not know is left out, not guessed at. The
 * run going on, if any, is its last turn as it stands now (`live`): the store writes it behind.
 * `tasks`: its background tasks as the host has them (they may go on after their run); `waiting`:
 * the prompts its runs wait on, as the host's chat prompts have them.
 */
export function chatHistory(
  engine: Engine,
  sessionId: string,
  live?: LiveRunView,
  tasks: BackgroundTask[] = [],
  waiting: Pick<ChatHistory, "approvals" | "questions"> = { approvals: [], questions: [] },
): ChatHistory {
  const store = engine.conversations();
  const record = store.get(sessionId);
  if (!record) {
    throw new ApiError(
      `There is no conversation "${sessionId}" to show: it was never started here, or its record is gone. Start a new chat.`,
    );
  }
  const prompts = new Map<string, string>();
  for (const message of store.messages(sessionId)) {
    if (message.role !== "user" || prompts.has(message.runId)) continue;
    const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    prompts.set(message.runId, text);
  }
  const turns: ChatTurn[] = [];
  for (const stored of store.events(sessionId)) {
    let turn = turns.at(-1);
    if (!turn || turn.runId !== stored.runId) {
      turn = { runId: stored.runId, prompt: prompts.get(stored.runId) ?? "", events: [] };
      turns.push(turn);
    }
    const parsed = RunEventSchema.safeParse(stored.data);
    if (parsed.success) turn.events.push(parsed.data);
  }
  if (live) {
    const recorded = turns.findIndex((turn) => turn.runId === live.runId);
    if (recorded !== -1) turns.splice(recorded, 1);
    turns.push({ runId: live.runId, prompt: live.prompt, events: live.events });
  }
  return {
    sessionId,
    agent: record.agent,
    model: record.model,
    turns,
    todos: engine.todos.get(sessionId),
    tasks,
    approvals: waiting.approvals,
    questions: waiting.questions,
    ...(live ? { runningRunId: live.runId, runningNextIndex: live.nextIndex } : {}),
  };
}
