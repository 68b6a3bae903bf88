import { useEffect, useRef, type KeyboardEvent } from "react";
import { useChat } from "../state/chat-context.tsx";
import { useAppState } from "../state/store-context.tsx";

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
  const field = useRef<HTMLTextAreaElement>(null);
  const focusPending = useAppState((s) => s.promptFocusPending);
  const setFocusPending = useAppState((s) => s.setPromptFocusPending);

  // A jump from the palette (a session, a new chat) ends here, ready to type: on the next frame,
  // after the palette's dialog has closed and handed the keyboard back to what opened it.
  useEffect(() => {
    if (!focusPending) return;
    setFocusPending(false);
    // (Not cancelled when the flag clears just above: that re-runs this effect at once.)
    requestAnimationFrame(() => field.current?.focus());
  }, [focusPending, setFocusPending]);

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
          ref={field}
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
