import { useCallback, useEffect, useRef, useState } from "react";
import type { AppView } from "./state/app-store.ts";
import { focusViewStart } from "./use-focus-view.ts";

interface SidebarDrawer {
  open: boolean;
  toggle(): void;
  /** Close it; `focus` says where the keyboard goes: back to the menu button, or into the view. */
  close(focus: "menu" | "view"): void;
}

/**
 * The sidebar as a drawer, for a window too narrow to keep it beside the view (the CSS decides
 * when: under 640 px the sidebar hides and the menu button shows). Choosing a view or a session
 * in it closes it and puts the keyboard in what was chosen; Esc or a click beside it closes it and
 * gives the keyboard back to the menu button.
 */
export function useSidebarDrawer(view: AppView, sessionId: string): SidebarDrawer {
  const [open, setOpen] = useState(false);
  const openRef = useRef(open);
  openRef.current = open;
  const close = useCallback((focus: "menu" | "view") => {
    setOpen(false);
    // After the drawer is hidden (its buttons can no longer hold the keyboard).
    requestAnimationFrame(() => {
      if (focus === "menu") document.querySelector<HTMLElement>(".menu-button")?.focus();
      else focusViewStart(currentView.current);
    });
  }, []);
  const currentView = useRef(view);
  currentView.current = view;
  useEffect(() => {
    if (openRef.current) close("view");
  }, [view, sessionId, close]);
  const toggle = useCallback(() => {
    if (openRef.current) close("menu");
    else {
      setOpen(true);
      requestAnimationFrame(() =>
        document.querySelector<HTMLElement>(".app-sidebar .nav-item[aria-current='page']")?.focus(),
      );
    }
  }, [close]);
  return { open, toggle, close };
}
