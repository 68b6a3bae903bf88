// Electron main: one window over one engine for one folder. It owns no logic of its own — the
// API is the router over the engine, reached through IPC from our own renderer only.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { app, BrowserWindow, dialog, ipcMain } from "electron";
import { CHANNELS, type ApiResult } from "../../shared/api-contract.ts";
import { ApiRouter } from "../api/api-router.ts";
import { isTrustedSender } from "../api/sender-check.ts";
import { createToolHandlers } from "../api/tool-handlers.ts";
import { Engine } from "../engine/index.ts";
import { resolveRootArgument } from "./root-argument.ts";

const here = import.meta.dirname;
const rendererFile = path.join(here, "../renderer/index.html");
const preloadFile = path.join(here, "../preload/index.cjs");
/** Set by `electron-vite dev` to its dev server; unset in a built app. */
const devServerUrl = process.env["ELECTRON_RENDERER_URL"];
const rendererUrl = devServerUrl ?? pathToFileURL(rendererFile).href;

function createWindow(): void {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    title: "Lathe",
    show: false,
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  win.once("ready-to-show", () => win.show());
  // The renderer is a single page: it never opens windows nor navigates away.
  win.webContents.setWindowOpenHandler(() => ({ action: "deny" }));
  win.webContents.on("will-navigate", (event) => event.preventDefault());
  const loading = devServerUrl ? win.loadURL(devServerUrl) : win.loadFile(rendererFile);
  loading.catch((error: unknown) =>
    console.error(`lathe: could not load the window from ${rendererUrl}:`, error),
  );
}

async function start(): Promise<void> {
  await app.whenReady();
  const root = resolveRootArgument(process.argv.slice(1), process.cwd());
  let engine: Engine;
  try {
    engine = await Engine.create({ root });
  } catch (error) {
    dialog.showErrorBox(
      "Lathe cannot open this folder",
      error instanceof Error ? error.message : String(error),
    );
    app.exit(1);
    return;
  }
  engine.events.on("internal-error", ({ toolId, error }) =>
    console.error(`lathe: ${toolId} failed inside Lathe:`, error),
  );
  const session = await engine.openSession();
  const router = new ApiRouter(createToolHandlers({ engine, session }), {
    onHandlerError: (channel, error) => console.error(`lathe: ${channel} handler failed:`, error),
  });

  for (const channel of CHANNELS) {
    ipcMain.handle(channel, (event, request: unknown): Promise<ApiResult<unknown>> | ApiResult<unknown> => {
      const frame = event.senderFrame;
      const trusted = isTrustedSender({
        frameUrl: frame?.url,
        isMainFrame: frame?.parent === null,
        rendererUrl,
      });
      if (!trusted) {
        console.error(`lathe: refused ${channel} from ${frame?.url ?? "a closed frame"}`);
        return {
          ok: false,
          error: { message: `Refused ${channel}: the request did not come from Lathe's own window.` },
        };
      }
      return router.dispatch(channel, request);
    });
  }

  createWindow();
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });

  let engineClosed = false;
  app.on("before-quit", (event) => {
    if (engineClosed) return;
    event.preventDefault();
    engine
      .close()
      .catch((error: unknown) => console.error("lathe: closing the engine failed:", error))
      .finally(() => {
        engineClosed = true;
        app.quit();
      });
  });
}

app.enableSandbox();
app.on("window-all-closed", () => {
  if (process.platform !== "darwin") app.quit();
});
start().catch((error: unknown) => {
  console.error("lathe: the app failed to start:", error);
  app.exit(1);
});
