import { useEffect } from "react";
import type { AppView } from "./state/app-store.ts";

/**
 * When the view changes and focus is nowhere — the palette that chose the view closed and gave
 * focus back to an element the old view took with it — put the keyboard in the new view: at its
 * heading (so the next Tab is its first control), or in the chat's prompt. Focus somewhere else
 * (a nav button that was clicked, a field) is left where it is.
 */
export function useFocusView(view: AppView, section: string | undefined): void {
  useEffect(() => {
    if (focusIsLost()) focusViewStart(view);
  }, [view, section]);
}

/** Whether the keyboard is nowhere: the element it was on went away, and the page itself has it. */
export function focusIsLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body;
}

/** Put the keyboard where `view` starts: the chat's prompt, else the view's heading. */
export function focusViewStart(view: AppView): void {
  const main = document.querySelector("main");
  const target = main?.querySelector<HTMLElement>(
    view === "chat" ? 'textarea[aria-label="Prompt"]' : ".view-head h2",
  );
  target?.focus({ preventScroll: true });
}
