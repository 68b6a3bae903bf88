import { useAppState } from "../state/store-context.tsx";
import { VIEWS } from "../views.ts";
import { Icon } from "./icons.tsx";

/**
 * The app's views, in the sidebar; the one shown is marked as the current page. `onChoose` is
 * called after any choice, the view already shown included (the drawer closes on it).
 */
export function NavList({ onChoose }: { onChoose?: () => void }) {
  const current = useAppState((s) => s.view);
  const setView = useAppState((s) => s.setView);
  return (
    <nav className="nav-list" aria-label="Views">
      {VIEWS.map(({ view, label, icon }) => (
        <button
          key={view}
          type="button"
          className="nav-item"
          aria-current={view === current ? "page" : undefined}
          onClick={() => {
            setView(view);
            onChoose?.();
          }}
        >
          <Icon name={icon} />
          <span>{label}</span>
        </button>
      ))}
    </nav>
  );
}
