import { useEffect } from "react";
import { focusIsLost } from "./use-focus-view.ts";

/** What can take the keyboard, in the page's order. */
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** A button that says it is at work ("Saving…", "Checking…"): its action has not ended yet. */
function saysBusy(button: HTMLButtonElement): boolean {
  return (button.textContent ?? "").trim().endsWith("…");
}

/** Where a view starts: its heading, or the chat's prompt. */
function viewStart(main: Element): HTMLElement | undefined {
  return main.querySelector<HTMLElement>('.view-head h2, textarea[aria-label="Prompt"]') ?? undefined;
}

/**
 * Where the keyboard goes when a button stays disabled once its action is done: the next control
 * after it in the view, else the view's heading (the chat's prompt). None in a dialog, which
 * places the keyboard itself (and gives it back as it closes).
 */
function placeAfter(button: HTMLElement): HTMLElement | undefined {
  const scope = button.closest("main");
  if (!scope || button.closest("dialog")) return undefined;
  const next = [...scope.querySelectorAll<HTMLElement>(FOCUSABLE)].find(
    (element) =>
      button.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING &&
      !element.closest("[inert], fieldset:disabled") &&
      element.getClientRects().length > 0,
  );
  return next ?? viewStart(scope);
}

/**
 * A button pressed from the keyboard that its own action disables keeps the keyboard near it: the
 * browser takes the keyboard from a button as it is disabled, and it fell to the page itself,
 * where the next Tab starts over at the header.
 * - A button disabled while it works (Refresh, Check again, Restart) gets the keyboard back once
 *   it is enabled again.
 * - A button that stays disabled once its action is done (Save, once saved; Revert, once
 *   reverted) hands it on to the next control, or the view's heading. Done is when it no longer
 *   says it is at work ("Saving…" back to "Save"); one that never said so is done at once, and
 *   takes the keyboard back should it be enabled again before the person moved on.
 * - A control its action took away (Trust this folder, once trusted) leaves the keyboard at the
 *   view's heading (the chat's prompt), unless what took it away put the keyboard somewhere
 *   itself (a form that closed gives it back to what opened it).
 * One button is watched at a time: the last one that lost the keyboard.
 */
export function useKeyboardBackAfterBusy(): void {
  useEffect(() => {
    // An element that had the keyboard and was taken away (its own action removed it): once
    // whatever took it has had its say (a form that closed gives the keyboard back to what opened
    // it, a frame later), the keyboard nowhere goes to the start of the view on screen.
    const afterRemoval = (element: Element) =>
      requestAnimationFrame(() => {
        if (element.isConnected || !focusIsLost()) return;
        requestAnimationFrame(() => {
          const main = document.querySelector("main");
          if (focusIsLost() && main) viewStart(main)?.focus();
        });
      });
    let watching: MutationObserver | undefined;
    let frame: number | undefined;
    const stop = () => {
      watching?.disconnect();
      watching = undefined;
      if (frame !== undefined) cancelAnimationFrame(frame);
      frame = undefined;
    };
    const onFocusOut = (event: FocusEvent) => {
      if (event.relatedTarget === null && event.target instanceof Element) afterRemoval(event.target);
      const button = event.target;
      // Disabling blurs at once, with nowhere to go: no element takes the keyboard next.
      if (!(button instanceof HTMLButtonElement) || !button.disabled || event.relatedTarget !== null) return;
      stop();
      // Where this hook put the keyboard meanwhile: the button takes it back from there only.
      let placed: HTMLElement | undefined;
      const handOn = () => {
        if (!button.isConnected || !focusIsLost()) return;
        placed = placeAfter(button);
        placed?.focus();
      };
      watching = new MutationObserver(() => {
        if (!button.isConnected) return stop();
        if (!button.disabled) {
          stop();
          if (focusIsLost() || (placed !== undefined && document.activeElement === placed)) button.focus();
          return;
        }
        if (placed === undefined && !saysBusy(button)) handOn();
      });
      watching.observe(button, {
        attributes: true,
        attributeFilter: ["disabled"],
        childList: true,
        characterData: true,
        subtree: true,
      });
      // Once the page has drawn the change that disabled it (its label may change with it).
      frame = requestAnimationFrame(() => {
        frame = undefined;
        if (button.disabled && !saysBusy(button)) handOn();
      });
    };
    document.addEventListener("focusout", onFocusOut);
    return () => {
      document.removeEventListener("focusout", onFocusOut);
      stop();
    };
  }, []);
}
