import { useAppState } from "../state/store-context.tsx";
import { Icon } from "./icons.tsx";

/** Under the header while the connection to the host is gone: what happened and what to do. */
export function ConnectionBanner() {
  const lost = useAppState((s) => s.connectionLost);
  if (lost === undefined) return null;
  return (
    <div className="connection-banner" role="alert">
      <Icon name="warning" size={15} />
      <span className="notice-text">{lost}</span>
      <button type="button" className="link-button" onClick={() => window.location.reload()}>
        Reload
      </button>
    </div>
  );
}
