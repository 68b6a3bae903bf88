import { ActivityList } from "./components/activity-list.tsx";
import { ApprovalDialog } from "./components/approval-dialog.tsx";
import { ChatView } from "./components/chat-view.tsx";
import { McpPanel } from "./components/mcp-panel.tsx";
import { PluginsPanel } from "./components/plugins-panel.tsx";
import { ProvidersPanel } from "./components/providers-panel.tsx";
import { QuestionDialog } from "./components/question-dialog.tsx";
import { ResultView } from "./components/result-view.tsx";
import { ToolList } from "./components/tool-list.tsx";
import { ToolPanel } from "./components/tool-panel.tsx";
import { ToolsOverview } from "./components/tools-overview.tsx";
import { TrustBanner } from "./components/trust-banner.tsx";
import { VIEW_PANEL_ID, ViewTabs, viewTabId } from "./components/view-tabs.tsx";
import { useAppState } from "./state/store-context.tsx";

function ProjectLabel() {
  const project = useAppState((s) => s.project);
  if (!project) return null;
  return (
    <p className="topbar-project">
      <code title={project.root}>{project.root}</code>{" "}
      <span className={project.trusted ? "badge badge-read" : "badge badge-write"}>
        {project.trusted ? "trusted" : "not trusted"}
      </span>
    </p>
  );
}

function Workbench() {
  return (
    <div className="layout">
      <ToolList />
      <main className="workspace">
        <ToolPanel />
        <ResultView />
        <ActivityList />
      </main>
    </div>
  );
}

function CurrentView() {
  const view = useAppState((s) => s.view);
  if (view === "workbench") return <Workbench />;
  if (view === "chat") return <ChatView />;
  if (view === "settings") {
    return (
      <main className="workspace extensions">
        <ProvidersPanel />
      </main>
    );
  }
  return (
    <main className="workspace extensions">
      {view === "tools" ? <ToolsOverview /> : view === "plugins" ? <PluginsPanel /> : <McpPanel />}
    </main>
  );
}

export function App() {
  const status = useAppState((s) => s.toolsStatus);
  const error = useAppState((s) => s.toolsError);
  const count = useAppState((s) => s.tools.length);
  const loadTools = useAppState((s) => s.loadTools);
  const approvalError = useAppState((s) => s.approvalError);
  const view = useAppState((s) => s.view);

  return (
    <div className="app">
      <header className="topbar">
        <h1>Lathe</h1>
        <ProjectLabel />
        <p className="topbar-status" role="status">
          {status === "loading" && "Loading tools…"}
          {status === "ready" && `${count} tools`}
          {status === "failed" && "Not connected"}
        </p>
      </header>
      <TrustBanner />
      <ViewTabs />
      {approvalError ? (
        <p role="alert" className="app-alert">
          {approvalError}
        </p>
      ) : null}
      {status === "failed" ? (
        <main className="failure" role="alert">
          <h2>Lathe could not list its tools</h2>
          <p>{error}</p>
          <button type="button" onClick={() => void loadTools()}>
            Try again
          </button>
        </main>
      ) : (
        <div id={VIEW_PANEL_ID} role="tabpanel" aria-labelledby={viewTabId(view)} className="view-panel">
          <CurrentView />
        </div>
      )}
      <ApprovalDialog />
      <QuestionDialog />
    </div>
  );
}
