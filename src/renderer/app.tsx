import { ActivityList } from "./components/activity-list.tsx";
import { ApprovalDialog } from "./components/approval-dialog.tsx";
import { AuditView } from "./components/audit-view.tsx";
import { ChatView } from "./components/chat-view.tsx";
import { CommandPalette } from "./components/command-palette.tsx";
import { ConnectionBanner } from "./components/connection-banner.tsx";
import { DeleteSessionDialog } from "./components/delete-session-dialog.tsx";
import { Icon } from "./components/icons.tsx";
import { McpPanel } from "./components/mcp-panel.tsx";
import { ModelsPanel } from "./components/models-panel.tsx";
import { NavList } from "./components/nav-list.tsx";
import { NoticesBanner } from "./components/notices-banner.tsx";
import { PermissionsPanel } from "./components/permissions-panel.tsx";
import { PluginsPanel } from "./components/plugins-panel.tsx";
import { ProjectDialog } from "./components/project-dialog.tsx";
import { ProjectSwitcher } from "./components/project-switcher.tsx";
import { ProvidersPanel } from "./components/providers-panel.tsx";
import { QuestionDialog } from "./components/question-dialog.tsx";
import { RestoreDialog } from "./components/restore-dialog.tsx";
import { ResultView } from "./components/result-view.tsx";
import { SandboxPanel } from "./components/sandbox-panel.tsx";
import { SessionsSidebar } from "./components/sessions-sidebar.tsx";
import { ToolList } from "./components/tool-list.tsx";
import { ToolPanel } from "./components/tool-panel.tsx";
import { ToolsOverview } from "./components/tools-overview.tsx";
import { TrustDialog } from "./components/trust-dialog.tsx";
import { UnsandboxedMcpDialog } from "./components/unsandboxed-mcp-dialog.tsx";
import { SECTION_PANEL_ID, ViewSections, sectionTabId } from "./components/view-sections.tsx";
import { useChat, useChatStore } from "./state/chat-context.tsx";
import { useAppState, useAppStore } from "./state/store-context.tsx";
import { useSidebarDrawer } from "./use-sidebar-drawer.ts";
import { useFocusView } from "./use-focus-view.ts";
import { useGlobalKeys } from "./use-global-keys.ts";
import { useKeyboardBackAfterBusy } from "./use-keyboard-back-after-busy.ts";
import { viewInfo } from "./views.ts";
import { counted } from "../shared/counted.ts";

function Workbench() {
  return (
    <div className="layout">
      <ToolList />
      <div className="workspace">
        <ToolPanel />
        <ResultView />
        <ActivityList />
      </div>
    </div>
  );
}

/** The view on screen, and its section (views.ts lists them). */
function CurrentView() {
  const view = useAppState((s) => s.view);
  const section = useAppState((s) => s.sections[s.view]);
  switch (view) {
    case "chat":
      return <ChatView />;
    case "tools":
      return section === "catalog" ? <ToolsOverview /> : <Workbench />;
    case "extensions":
      return section === "mcp" ? <McpPanel /> : <PluginsPanel />;
    case "audit":
      return <AuditView />;
    case "settings":
      switch (section) {
        case "sandbox":
          return <SandboxPanel />;
        case "models":
          return <ModelsPanel />;
        case "providers":
          return <ProvidersPanel />;
        default:
          return <PermissionsPanel />;
      }
  }
}

function ToolsFailure() {
  const error = useAppState((s) => s.toolsError);
  const loadTools = useAppState((s) => s.loadTools);
  return (
    <section className="failure" role="alert">
      <h2>Lathe could not list its tools</h2>
      <p>{error}</p>
      <div className="row-actions">
        <button type="button" className="run" onClick={() => void loadTools()}>
          Try again
        </button>
      </div>
    </section>
  );
}

/**
 * The header's status: whether the page is connected to the host and, while it is, the tools —
 * loading, how many, or that they could not be listed (a failure of the listing, not of the
 * connection: it leads to the Tools view, where "Try again" is).
 */
function TopbarStatus() {
  const status = useAppState((s) => s.toolsStatus);
  const connected = useAppState((s) => s.connectionLost === undefined);
  const count = useAppState((s) => s.tools.length);
  const error = useAppState((s) => s.toolsError);
  const setView = useAppState((s) => s.setView);
  return (
    <p className="topbar-status" role="status">
      {!connected ? "Not connected" : null}
      {connected && status === "loading" ? "Loading tools…" : null}
      {connected && status === "ready" ? counted(count, "tool") : null}
      {connected && status === "failed" ? (
        <button
          type="button"
          className="link-button topbar-problem"
          title={`Lathe could not list its tools: ${error ?? "no reason given"}`}
          onClick={() => setView("tools")}
        >
          Tools not listed
        </button>
      ) : null}
    </p>
  );
}

/**
 * The app: a header (the project switcher, the palette), notices, a sidebar (the views, this
 * folder's sessions) and the view on screen; the dialogs (approval, question, trust, open folder,
 * delete, restore and rewind, an MCP server without the sandbox, palette) above it all.
 */
export function App() {
  const status = useAppState((s) => s.toolsStatus);
  const approvalError = useAppState((s) => s.approvalError);
  const view = useAppState((s) => s.view);
  const section = useAppState((s) => s.sections[s.view]);
  const setPalette = useAppState((s) => s.setPalette);
  useGlobalKeys(useAppStore(), useChatStore());
  useFocusView(view, section);
  useKeyboardBackAfterBusy();
  const info = viewInfo(view);
  const tabbed = info.sections.length > 1;
  const drawer = useSidebarDrawer(
    view,
    useChat((s) => s.sessionId),
  );

  return (
    <div className="app">
      <header className="topbar">
        <button
          type="button"
          className="menu-button"
          aria-label="Menu"
          aria-expanded={drawer.open}
          aria-controls="app-sidebar"
          onClick={drawer.toggle}
        >
          <Icon name="menu" />
        </button>
        <h1 className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Lathe
        </h1>
        <ProjectSwitcher />
        <span className="topbar-spacer" />
        <TopbarStatus />
        <button
          type="button"
          className="palette-button"
          onClick={() => setPalette(true)}
          aria-label="Search and commands"
          aria-keyshortcuts="Control+K"
        >
          <Icon name="search" size={14} />
          <span>Search and commands</span>
          <kbd>Ctrl K</kbd>
        </button>
      </header>
      <ConnectionBanner />
      <NoticesBanner />
      <div className={`shell${drawer.open ? " menu-open" : ""}`}>
        <aside
          id="app-sidebar"
          className="app-sidebar"
          aria-label="Sidebar"
          onKeyDown={(event) => {
            if (event.key !== "Escape" || !drawer.open) return;
            event.preventDefault();
            drawer.close("menu");
          }}
        >
          {/* Choosing the view already shown changes nothing the drawer watches: close it here. */}
          <NavList onChoose={() => (drawer.open ? drawer.close("view") : undefined)} />
          <SessionsSidebar />
        </aside>
        {drawer.open ? (
          <div className="sidebar-backdrop" aria-hidden="true" onClick={() => drawer.close("menu")} />
        ) : null}
        <main className={`main-view main-${view}`} aria-label={info.label}>
          {approvalError ? (
            <p role="alert" className="app-alert">
              {approvalError}
            </p>
          ) : null}
          {view !== "chat" ? (
            <div className="view-head">
              {/* Focusable from code only: where the keyboard lands when a view opens from the palette. */}
              <h2 tabIndex={-1}>{info.label}</h2>
              <ViewSections />
            </div>
          ) : null}
          {status === "failed" && view !== "chat" ? (
            <ToolsFailure />
          ) : (
            <div
              id={SECTION_PANEL_ID}
              className={`view-panel${view === "chat" ? "" : " view-padded"}`}
              {...(tabbed ? { role: "tabpanel", "aria-labelledby": sectionTabId(section) } : {})}
            >
              <CurrentView />
            </div>
          )}
        </main>
      </div>
      <ApprovalDialog />
      <QuestionDialog />
      <TrustDialog />
      <ProjectDialog />
      <DeleteSessionDialog />
      <RestoreDialog />
      <UnsandboxedMcpDialog />
      <CommandPalette />
    </div>
  );
}
