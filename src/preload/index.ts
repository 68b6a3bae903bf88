// The preload (sandboxed, context-isolated): exposes the shared API as `window.lathe`, each
// method one `ipcRenderer.invoke` on its channel, and the host's pushes (one IPC channel,
// validated against the contract) as typed subscriptions; and `window.latheDesktop`, the system's
// folder picker. Nothing else of Electron reaches the page.
import { contextBridge, ipcRenderer } from "electron";
import { createLatheApi, transportFailure, type Invoke, type Subscribe } from "../shared/create-lathe-api.ts";
import { DESKTOP_PICK_FOLDER, DESKTOP_PICK_GGUF, type LatheDesktop } from "../shared/desktop-api.ts";
import { PUSH_CHANNEL } from "../shared/push-events.ts";
import { PushListeners } from "../shared/push-listeners.ts";

const invoke: Invoke = (channel, request) =>
  ipcRenderer
    .invoke(channel, request)
    .catch((error: unknown) => transportFailure(`IPC ${channel} failed`, error));

const listeners = new PushListeners();
ipcRenderer.on(PUSH_CHANNEL, (_event, frame: unknown) => listeners.deliver(frame));
const subscribe: Subscribe = (event, listener) => listeners.add(event, listener);

contextBridge.exposeInMainWorld("lathe", createLatheApi(invoke, subscribe));

const desktop: LatheDesktop = {
  pickFolder: async () => {
    const picked: unknown = await ipcRenderer.invoke(DESKTOP_PICK_FOLDER);
    return typeof picked === "string" ? picked : undefined;
  },
  pickGguf: async () => {
    const picked: unknown = await ipcRenderer.invoke(DESKTOP_PICK_GGUF);
    return typeof picked === "string" ? picked : undefined;
  },
};
contextBridge.exposeInMainWorld("latheDesktop", desktop);
