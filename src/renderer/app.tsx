import { ResultView } from "./components/result-view.tsx";
import { ToolList } from "./components/tool-list.tsx";
import { ToolPanel } from "./components/tool-panel.tsx";
import { useAppState } from "./state/store-context.tsx";

export function App() {
  const status = useAppState((s) => s.toolsStatus);
  const error = useAppState((s) => s.toolsError);
  const count = useAppState((s) => s.tools.length);
  const loadTools = useAppState((s) => s.loadTools);

  return (
    <div className="app">
      <header className="topbar">
        <h1>Lathe</h1>
        <p className="topbar-status" role="status">
          {status === "loading" && "Loading tools…"}
          {status === "ready" && `${count} tools`}
          {status === "failed" && "Not connected"}
        </p>
      </header>
      {status === "failed" ? (
        <main className="failure" role="alert">
          <h2>Lathe could not list its tools</h2>
          <p>{error}</p>
          <button type="button" onClick={() => void loadTools()}>
            Try again
          </button>
        </main>
      ) : (
        <div className="layout">
          <ToolList />
          <main className="workspace">
            <ToolPanel />
            <ResultView />
          </main>
        </div>
      )}
    </div>
  );
}
