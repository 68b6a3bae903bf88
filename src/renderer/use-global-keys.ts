import { useEffect } from "react";
import type { AppStore } from "./state/app-store.ts";
import type { ChatStore } from "./state/chat-store.ts";

/**
 * Whether Esc belongs to the focused field (a search to clear, a name to leave, a list to close)
 * rather than to the run: any field but the prompt box.
 */
function escapeIsTheFields(target: EventTarget | null): boolean {
  if (!(target instanceof Element) || target.closest(".prompt-box")) return false;
  return target.matches("input, select, textarea, [contenteditable]:not([contenteditable='false'])");
}

/**
 * The app's keys: Ctrl+K (⌘K on a Mac) opens or closes the command palette from anywhere; Esc
 * stops the chat's run when no dialog is open (a dialog's own Esc closes the dialog instead) and
 * focus is not in a field of its own (the session search, a rename).
 */
export function useGlobalKeys(app: AppStore, chat: ChatStore): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        const state = app.getState();
        // Not over a question or an approval: those wait for their own answer first.
        const other = [...document.querySelectorAll("dialog[open]")].some(
          (d) => !d.classList.contains("palette"),
        );
        if (!other || state.paletteOpen) state.setPalette(!state.paletteOpen);
        return;
      }
      if (event.key !== "Escape" || event.defaultPrevented) return;
      if (document.querySelector("dialog[open]") || escapeIsTheFields(event.target)) return;
      const { running, runId } = chat.getState();
      if (app.getState().view === "chat" && running && runId !== undefined) {
        event.preventDefault();
        void chat.getState().stop();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [app, chat]);
}
