// The preload (sandboxed, context-isolated): exposes the shared API as `window.lathe`, each
// method one `ipcRenderer.invoke` on its channel. Nothing else of Electron reaches the page.
import { contextBridge, ipcRenderer } from "electron";
import { createLatheApi, transportFailure, type Invoke } from "../shared/create-lathe-api.ts";

const invoke: Invoke = (channel, request) =>
  ipcRenderer
    .invoke(channel, request)
    .catch((error: unknown) => transportFailure(`IPC ${channel} failed`, error));

contextBridge.exposeInMainWorld("lathe", createLatheApi(invoke));
