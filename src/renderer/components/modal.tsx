import { useEffect, useRef, type KeyboardEvent, type ReactNode, type SyntheticEvent } from "react";
import { trapTab } from "./focus-trap.ts";

/**
 * A modal <dialog> shown while `open`: Esc (or the browser's own close request) calls `onClose`,
 * Tab stays inside, and focus goes to the element marked `data-autofocus` when it opens.
 */
export function Modal({
  open,
  onClose,
  labelledBy,
  className,
  children,
}: {
  open: boolean;
  onClose(): void;
  labelledBy: string;
  className?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open) {
      if (!element.open) element.showModal();
      element.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    } else if (element.open) element.close();
  }, [open]);
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onClose();
      return;
    }
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
      onKeyDown={onKeyDown}
      onCancel={onCancel}
    >
      {open ? children : null}
    </dialog>
  );
}
