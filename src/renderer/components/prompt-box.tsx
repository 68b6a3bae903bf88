import type { KeyboardEvent } from "react";
import { useChat } from "../state/chat-context.tsx";

/** The prompt: Enter sends, Shift+Enter starts a new line; Stop (or Esc) ends the run going on. */
export function PromptBox() {
  const draft = useChat((s) => s.draft);
  const setDraft = useChat((s) => s.setDraft);
  const send = useChat((s) => s.send);
  const stop = useChat((s) => s.stop);
  const running = useChat((s) => s.running);
  const stopping = useChat((s) => s.stopping);
  const canStop = useChat((s) => s.runId !== undefined);
  const error = useChat((s) => s.sendError);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void send();
  };

  return (
    <form
      className="prompt-box"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {error ? (
        <p role="alert" className="field-error prompt-error">
          {error}
        </p>
      ) : null}
      <div className="prompt-row">
        <textarea
          aria-label="Prompt"
          rows={3}
          value={draft}
          placeholder="Ask the agent to do something in this folder…"
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {running ? (
          <button
            type="button"
            className="run button-stop"
            disabled={!canStop || stopping}
            onClick={() => void stop()}
          >
            {stopping ? "Stopping…" : "Stop"}
          </button>
        ) : (
          <button type="submit" className="run" disabled={draft.trim() === ""}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
