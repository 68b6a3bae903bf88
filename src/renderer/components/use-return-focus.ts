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
  // A layout effect: it runs before the dialog's own effect moves the keyboard into it.
  useLayoutEffect(() => {
    if (open) {
      if (!origin.current) {
        const element = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        origin.current = { element, article: element?.closest("article") ?? null };
      }
      return;
    }
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
