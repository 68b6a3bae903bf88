import type { KeyboardEvent } from "react";
import type { AppView } from "../state/app-store.ts";
import { useAppState } from "../state/store-context.tsx";

export const VIEWS: { view: AppView; label: string }[] = [
  { view: "workbench", label: "Workbench" },
  { view: "chat", label: "Chat" },
  { view: "tools", label: "Tools" },
  { view: "plugins", label: "Plugins" },
  { view: "mcp", label: "MCP servers" },
  { view: "settings", label: "Settings" },
];

export const viewTabId = (view: AppView) => `view-tab-${view}`;
export const VIEW_PANEL_ID = "view-panel";

/** The app's views as tabs; arrow keys move between them. */
export function ViewTabs() {
  const current = useAppState((s) => s.view);
  const setView = useAppState((s) => s.setView);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    event.preventDefault();
    const index = VIEWS.findIndex((v) => v.view === current);
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = VIEWS[(index + step + VIEWS.length) % VIEWS.length] as (typeof VIEWS)[number];
    setView(next.view);
    document.getElementById(viewTabId(next.view))?.focus();
  };

  return (
    <div className="view-tabs" role="tablist" aria-label="Views" onKeyDown={onKeyDown}>
      {VIEWS.map(({ view, label }) => (
        <button
          key={view}
          id={viewTabId(view)}
          type="button"
          role="tab"
          className="view-tab"
          aria-selected={view === current}
          aria-controls={VIEW_PANEL_ID}
          tabIndex={view === current ? 0 : -1}
          onClick={() => setView(view)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
