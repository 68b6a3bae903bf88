import { useChat } from "../state/chat-context.tsx";
import { useSessions } from "../state/sessions-context.tsx";
import { ChatPickers } from "./chat-pickers.tsx";
import { ChatTranscript } from "./chat-transcript.tsx";
import { PromptBox } from "./prompt-box.tsx";
import { sessionLabel } from "./sessions-sidebar.tsx";
import { TasksPanel } from "./tasks-panel.tsx";
import { TodoPanel } from "./todo-panel.tsx";

/** The session's title in the chat header: its name in the list, else its first prompt, else "New chat". */
function ChatTitle() {
  const sessionId = useChat((s) => s.sessionId);
  const firstPrompt = useChat((s) => s.turns[0]?.prompt);
  const listed = useSessions((s) => s.sessions.find((session) => session.id === sessionId));
  const title = listed ? sessionLabel(listed) : (firstPrompt?.split("\n", 1)[0] ?? "") || "New chat";
  return (
    <h2 className="chat-title" title={title}>
      {title}
    </h2>
  );
}

/**
 * The chat: a header (the session's title; the model and agent pickers, where the second wave's
 * model picker goes), the streamed conversation, the prompt, and beside it the session's
 * background tasks once one started (they may outlive their run: here they stay in sight and
 * stoppable) and the todo list once the agent keeps one. Checkpoints in the chat plug in at the turns (chat-transcript.tsx).
 */
export function ChatView() {
  const hasTodos = useChat((s) => s.todos.length > 0);
  const hasTasks = useChat((s) => s.tasks.length > 0);
  return (
    <div className={`chat-layout${hasTodos || hasTasks ? " with-side" : ""}`}>
      <section className="chat-main" aria-label="Chat">
        <header className="chat-header">
          <ChatTitle />
          <ChatPickers />
        </header>
        <ChatTranscript />
        <PromptBox />
      </section>
      {hasTodos || hasTasks ? (
        <aside className="chat-side">
          {hasTasks ? <TasksPanel /> : null}
          {hasTodos ? <TodoPanel /> : null}
        </aside>
      ) : null}
    </div>
  );
}
