import { useLayoutEffect, useRef } from "react";
import { focusIsLost } from "../use-focus-view.ts";

/** Where the keyboard was when something took it: the element, and the article (a card) it was in. */
export interface FocusOrigin {
  element: HTMLElement | null;
  article: HTMLElement | null;
}

/**
 * The keyboard back where it was once something that took it closes: while `open`, the element
 * that had the keyboard when it opened is remembered; once closed, when the keyboard is nowhere
 * (the dialog took it along), that element gets it back, or, when it has gone meanwhile (a Restore
 * button replaced by what it did), `elsewhere` decides. Focus that went somewhere on its own (a
 * click) is left there.
 */
export function useReturnFocus(open: boolean, elsewhere: (origin: FocusOrigin) => void): void {
  const origin = useRef<FocusOrigin | undefined>(undefined);
  const fallback = useRef(elsewhere);
  fallback.current = elsewhere;
  // Read while rendering the opening, before the page changes: the button that opened it may be
  // disabled by the same change (which takes the keyboard from it), and the dialog's own effect
  // moves the keyboard into it.
  if (open && origin.current === undefined) origin.current = focusOrigin();
  useLayoutEffect(() => {
    if (open) return;
    const from = origin.current;
    origin.current = undefined;
    if (!from) return;
    // Once the page has drawn the dialog closed, and the dialog's own effects have run.
    requestAnimationFrame(() => {
      if (!focusIsLost()) return;
      if (from.element?.isConnected) from.element.focus();
      else fallback.current(from);
    });
  }, [open]);
}

/** Where the keyboard is now (nowhere, when the page itself has it). */
function focusOrigin(): FocusOrigin {
  const active = document.activeElement;
  const element = !focusIsLost() && active instanceof HTMLElement ? active : null;
  return { element, article: element?.closest("article") ?? null };
}
