import { useChat } from "../state/chat-context.tsx";
import { ChatPickers } from "./chat-pickers.tsx";
import { ChatTranscript } from "./chat-transcript.tsx";
import { PromptBox } from "./prompt-box.tsx";
import { TodoPanel } from "./todo-panel.tsx";

/** The chat: pickers and a new-chat button, the streamed conversation, the prompt, and the todo list. */
export function ChatView() {
  const running = useChat((s) => s.running);
  const newChat = useChat((s) => s.newChat);
  return (
    <div className="chat-layout">
      <section className="chat-main" aria-label="Chat">
        <div className="chat-toolbar">
          <ChatPickers />
          <button type="button" className="chat-new" disabled={running} onClick={newChat}>
            New chat
          </button>
        </div>
        <ChatTranscript />
        <PromptBox />
      </section>
      <aside className="chat-side">
        <TodoPanel />
      </aside>
    </div>
  );
}
