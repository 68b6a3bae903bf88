import type { KeyboardEvent } from "react";
import { useAppState } from "../state/store-context.tsx";
import { viewInfo } from "../views.ts";

export const sectionTabId = (id: string) => `section-tab-${id}`;
export const SECTION_PANEL_ID = "section-panel";

/** A view's sections as tabs at its top (arrow keys move between them); nothing for a one-section view. */
export function ViewSections() {
  const view = useAppState((s) => s.view);
  const current = useAppState((s) => s.sections[s.view]);
  const setView = useAppState((s) => s.setView);
  const { sections, label } = viewInfo(view);
  if (sections.length < 2) return null;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    event.preventDefault();
    const index = sections.findIndex((s) => s.id === current);
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = sections[(index + step + sections.length) % sections.length];
    if (!next) return;
    setView(view, next.id);
    document.getElementById(sectionTabId(next.id))?.focus();
  };

  return (
    <div className="view-tabs" role="tablist" aria-label={`${label} sections`} onKeyDown={onKeyDown}>
      {sections.map(({ id, label: text }) => (
        <button
          key={id}
          id={sectionTabId(id)}
          type="button"
          role="tab"
          className="view-tab"
          aria-selected={id === current}
          aria-controls={SECTION_PANEL_ID}
          tabIndex={id === current ? 0 : -1}
          onClick={() => setView(view, id)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
