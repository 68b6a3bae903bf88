import { useEffect, useRef, type KeyboardEvent, type ReactNode, type SyntheticEvent } from "react";
import { trapTab } from "./focus-trap.ts";

/**
 * A modal <dialog> shown while `open`: Esc, the browser's own close request, or the dialog
 * closing any other way while still open calls `onClose`; Tab stays inside; and focus goes to the
 * element marked `data-autofocus` (else the first field) when it opens, and again whenever
 * `focusKey` changes (the next request in the same dialog). `onKey` sees every other key first
 * and returns true when it handled one.
 */
export function Modal({
  open,
  focusKey,
  onClose,
  onKey,
  labelledBy,
  describedBy,
  className,
  children,
}: {
  open: boolean;
  focusKey?: string | number | undefined;
  onClose(): void;
  onKey?(event: KeyboardEvent<HTMLDialogElement>): boolean;
  labelledBy: string;
  describedBy?: string;
  className?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open) {
      if (!element.open) element.showModal();
      const target =
        element.querySelector<HTMLElement>("[data-autofocus]") ??
        element.querySelector<HTMLElement>("input, textarea");
      target?.focus();
    } else if (element.open) element.close();
  }, [open, focusKey]);
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onClose();
      return;
    }
    if (onKey?.(event)) return;
    if (dialog.current) trapTab(event, dialog.current);
  };
  const onCancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    event.preventDefault();
    onClose();
  };
  return (
    <dialog
      ref={dialog}
      className={`approval ${className ?? ""}`}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onKeyDown={onKeyDown}
      onCancel={onCancel}
      onClose={(event) => {
        // A close event queued by an earlier close can arrive after the dialog was opened again:
        // only a dialog that is shut while it should be open has been closed by someone else.
        if (open && !event.currentTarget.open) onClose();
      }}
    >
      {open ? children : null}
    </dialog>
  );
}
