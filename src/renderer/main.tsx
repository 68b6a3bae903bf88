import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createWsApi, wsApiUrl } from "../preload/ws-api.ts";
import { sessionTabId } from "./state/session-tab-id.ts";
import type { LatheApi } from "../shared/api-contract.ts";
import { TOKEN_PARAM } from "../shared/ws-protocol.ts";
import { App } from "./app.tsx";
import { StoreProvider } from "./state/store-context.tsx";
import { createAppStore } from "./state/app-store.ts";
import { ChatProvider } from "./state/chat-context.tsx";
import { createChatStore, SESSION_KEY } from "./state/chat-store.ts";
import { ExtensionsProvider } from "./state/extensions-context.tsx";
import { createExtensionsStore } from "./state/extensions-store.ts";
import { ProvidersProvider } from "./state/providers-context.tsx";
import { createProvidersStore } from "./state/providers-store.ts";
import { SessionsProvider } from "./state/sessions-context.tsx";
import { createSessionsStore } from "./state/sessions-store.ts";
import { AuditProvider } from "./state/audit-context.tsx";
import { createAuditStore } from "./state/audit-store.ts";
import { RestoreProvider } from "./state/restore-context.tsx";
import { createRestoreStore } from "./state/restore-store.ts";
import { SettingsProvider } from "./state/settings-context.tsx";
import { createSettingsStore } from "./state/settings-store.ts";

/** In Electron the preload provides `window.lathe`; in a browser (`lathe serve`) we build it here. */
function latheApi(): LatheApi {
  if (window.lathe) return window.lathe;
  const token = new URLSearchParams(window.location.search).get(TOKEN_PARAM) ?? "";
  const api = createWsApi(wsApiUrl(window.location.href, token), {
    // This tab's id survives its reloads (sessionStorage), so the runs it started stay its own.
    tab: sessionTabId(window.sessionStorage),
    // The stores exist by the time a connection can close (they are made right below).
    onConnection: (lost) => {
      store.getState().setConnectionLost(lost);
      if (lost !== undefined) {
        chat.getState().connectionLost();
        sessions.getState().connectionLost();
      }
    },
  });
  window.lathe = api;
  return api;
}

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");
const api = latheApi();
const sessions = createSessionsStore(api);
// The chat on screen survives a reload of this tab (sessionStorage), not a new window.
const chat = createChatStore(api, {
  storage: window.sessionStorage,
  onSessionsChanged: () => void sessions.getState().load(),
  // A chat opened while its run waits for an approval shows that prompt here too.
  onApprovalsWaiting: (approvals) => store.getState().approvalsWaiting(approvals),
});
// Another folder: the chat starts afresh there and the session list is that folder's.
const store = createAppStore(api, {
  onProjectChanged: () => {
    chat.getState().reset();
    void sessions.getState().load();
    void extensions.getState().load();
  },
});
// Plugins and servers that change bring or take tools: the tool list follows.
const extensions = createExtensionsStore(api, { onChanged: () => void store.getState().refreshTools() });
const providers = createProvidersStore(api);
const settings = createSettingsStore(api);
const audit = createAuditStore(api);
// After a restore the chat's checkpoints change; after a rewind its conversation is cut, and the
// prompt it went back to returns to the box.
const restore = createRestoreStore(api, {
  onApplied: (target) => {
    if (target.kind === "rewind") {
      void chat.getState().reload();
      if (chat.getState().draft.trim() === "") chat.getState().setDraft(target.prompt);
      void sessions.getState().load();
    } else void chat.getState().loadCheckpoints();
  },
});
createRoot(container).render(
  <StrictMode>
    <StoreProvider store={store}>
      <ExtensionsProvider store={extensions}>
        <ChatProvider store={chat}>
          <ProvidersProvider store={providers}>
            <SessionsProvider store={sessions}>
              <SettingsProvider store={settings}>
                <AuditProvider store={audit}>
                  <RestoreProvider store={restore}>
                    <App />
                  </RestoreProvider>
                </AuditProvider>
              </SettingsProvider>
            </SessionsProvider>
          </ProvidersProvider>
        </ChatProvider>
      </ExtensionsProvider>
    </StoreProvider>
  </StrictMode>,
);
store.getState().connect();
extensions.getState().connect();
// A chat started, renamed or deleted in another window or tab of the same host.
api.on("sessions.changed", () => void sessions.getState().load());
chat.getState().connect();
void store.getState().loadTools();
void store.getState().loadProject();
void extensions.getState().load();
void chat.getState().loadPickers();
void sessions.getState().load();
if (window.sessionStorage.getItem(SESSION_KEY) !== null)
  void chat.getState().restore(chat.getState().sessionId);
