import { useEffect } from "react";
import { focusIsLost } from "./use-focus-view.ts";

/**
 * A button pressed from the keyboard that its own action disables while it runs (Refresh, Check
 * again, Restart) keeps the keyboard: the browser takes it from the button as it is disabled, and
 * it fell to the page itself. Once that button is enabled again, and the keyboard is still
 * nowhere, the button gets it back. One button is watched at a time: the last one that lost it.
 */
export function useKeyboardBackAfterBusy(): void {
  useEffect(() => {
    let watching: MutationObserver | undefined;
    const stop = () => {
      watching?.disconnect();
      watching = undefined;
    };
    const onFocusOut = (event: FocusEvent) => {
      const button = event.target;
      // Disabling blurs at once, with nowhere to go: no element takes the keyboard next.
      if (!(button instanceof HTMLButtonElement) || !button.disabled || event.relatedTarget !== null) return;
      stop();
      watching = new MutationObserver(() => {
        if (button.disabled) return;
        stop();
        if (button.isConnected && focusIsLost()) button.focus();
      });
      watching.observe(button, { attributes: true, attributeFilter: ["disabled"] });
    };
    document.addEventListener("focusout", onFocusOut);
    return () => {
      document.removeEventListener("focusout", onFocusOut);
      stop();
    };
  }, []);
}
