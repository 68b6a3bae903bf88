// Electron main: windows over one engine for one folder. It owns no logic of its own — each
// window is a UI connection (its own session, approval prompts and pushes) whose requests go
// through the router, reached through IPC from our own renderer only. `--smoke-test` runs the
// packaged app's self-check instead (smoke-test.ts) and exits with its code.
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  safeStorage,
  shell,
  type BrowserWindowConstructorOptions,
  type OpenDialogOptions,
  type WebContents,
} from "electron";
import { CHANNELS, type ApiResult } from "../../shared/api-contract.ts";
import { DESKTOP_PICK_FOLDER, DESKTOP_PICK_GGUF } from "../../shared/desktop-api.ts";
import { PUSH_CHANNEL } from "../../shared/push-events.ts";
import { EngineHost, createLoggedEngine } from "../api/engine-host.ts";
import { isTrustedSender } from "../api/sender-check.ts";
import { UiConnection } from "../api/ui-connection.ts";
import { UnsandboxedMcpGate } from "../api/unsandboxed-mcp-gate.ts";
import { RotatingLogFile, type Engine } from "../engine/index.ts";
import { ProviderKeys } from "../secrets/provider-keys.ts";
import { SecretStore } from "../secrets/secret-store.ts";
import { appMenuTemplate } from "./app-menu.ts";
import { appPaths } from "./app-paths.ts";
import { teeConsoleToLog } from "./console-log-tee.ts";
import { keychainEncryptor } from "./keychain-encryptor.ts";
import { openFolder } from "./open-folder.ts";
import { resolveRootArgument } from "./root-argument.ts";
import { hasSmokeTestFlag, runSmokeTest } from "./smoke-test.ts";
import { errorMessage } from "../engine/light.ts";

const here = import.meta.dirname;
const rendererFile = path.join(here, "../renderer/index.html");
const preloadFile = path.join(here, "../preload/index.cjs");
/** Set by `electron-vite dev` to its dev server; unset in a built app. */
const devServerUrl = process.env["ELECTRON_RENDERER_URL"];
const rendererUrl = devServerUrl ?? pathToFileURL(rendererFile).href;

const paths = appPaths({
  env: process.env,
  userData: app.getPath("userData"),
  logs: app.getPath("logs"),
  isPackaged: app.isPackaged,
  resourcesPath: process.resourcesPath,
  appPath: app.getAppPath(),
});

/** One UI connection per window's page, keyed by its webContents id; a reload starts a new one. */
const connections = new Map<number, UiConnection>();

function connectionFor(
  contents: WebContents,
  engineHost: EngineHost,
  providerKeys: ProviderKeys,
): UiConnection {
  let connection = connections.get(contents.id);
  if (!connection) {
    connection = new UiConnection({
      host: engineHost,
      // A window is one tab for its whole life (a reload keeps its webContents), so its runs
      // follow it across reloads; the main process knows which window asks, the page need not say.
      tabId: `electron-window-${contents.id}`,
      providerKeys,
      send: (frame) => {
        if (contents.isDestroyed()) throw new Error("the window is closed");
        contents.send(PUSH_CHANNEL, frame);
      },
      onHandlerError: (channel, error) => console.error(`lathe: ${channel} handler failed:`, error),
    });
    connections.set(contents.id, connection);
  }
  return connection;
}

/** The page that was asked went away: its prompts are rejected, its calls aborted. */
function dropConnection(contentsId: number): Promise<void> {
  const connection = connections.get(contentsId);
  if (!connection) return Promise.resolve();
  connections.delete(contentsId);
  return connection
    .close()
    .catch((error: unknown) => console.error("lathe: closing a window's connection failed:", error));
}

/** Every window, the smoke test's hidden one included. */
const WINDOW_OPTIONS: BrowserWindowConstructorOptions = {
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
};

function createWindow(): void {
  const win = new BrowserWindow(WINDOW_OPTIONS);
  win.once("ready-to-show", () => win.show());
  const contents = win.webContents;
  const id = contents.id;
  // The renderer is a single page: it never opens windows nor navigates away.
  contents.setWindowOpenHandler(() => ({ action: "deny" }));
  contents.on("will-navigate", (event) => event.preventDefault());
  // A reload, a crash or a closed window ends the page that was shown the prompts.
  contents.on("did-start-navigation", (details) => {
    if (details.isMainFrame && !details.isSameDocument) void dropConnection(id);
  });
  contents.on("render-process-gone", () => void dropConnection(id));
  contents.on("destroyed", () => void dropConnection(id));
  const loading = devServerUrl ? win.loadURL(devServerUrl) : win.loadFile(rendererFile);
  loading.catch((error: unknown) =>
    console.error(`lathe: could not load the window from ${rendererUrl}:`, error),
  );
}

/** Shows a folder from the Help menu; a failure is logged and shown, never thrown. */
function showFolder(folder: string): void {
  openFolder(folder, (target) => shell.openPath(target)).catch((error: unknown) => {
    console.error("lathe:", error);
    dialog.showErrorBox("Lathe", errorMessage(error));
  });
}

/**
 * The smoke test's window check: the renderer and its preload load from the package (hidden, and
 * without the IPC handlers: only what ships is checked, the engine path is checked in plain Node).
 */
async function checkWindowLoads(): Promise<void> {
  const win = new BrowserWindow(WINDOW_OPTIONS);
  await win.loadFile(rendererFile);
  const exposed: unknown = await win.webContents.executeJavaScript(
    "typeof window.lathe === 'object' && window.lathe !== null",
  );
  if (exposed !== true) throw new Error(`${rendererFile} loaded but its preload did not expose window.lathe`);
}

async function smokeTest(): Promise<number> {
  await app.whenReady();
  const { exitCode } = await runSmokeTest({
    bundledPluginsDir: paths.bundledPluginsDir,
    extraChecks: [{ name: "window", run: checkWindowLoads }],
  });
  return exitCode;
}

async function start(): Promise<void> {
  await app.whenReady();
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      appMenuTemplate(process.platform, {
        openLogsFolder: () => showFolder(paths.logsDir),
        openLatheHome: () => showFolder(paths.latheHome),
      }),
    ),
  );
  // Cloud provider keys kept in the OS keychain reach the providers as their usual variables.
  const providerKeys = new ProviderKeys({
    store: new SecretStore(
      path.join(app.getPath("userData"), "secrets.json"),
      keychainEncryptor(safeStorage),
    ),
  });
  try {
    providerKeys.applyStored();
  } catch (error) {
    console.error("lathe: could not read the stored provider keys:", error);
  }
  const root = resolveRootArgument(process.argv.slice(1), process.cwd());
  // A stdio MCP server that would start without the OS sandbox waits for a window to ask the person.
  const unsandboxedMcp = new UnsandboxedMcpGate();
  const engineOptions = {
    latheHome: paths.latheHome,
    bundledPluginsDir: paths.bundledPluginsDir,
    approveUnsandboxedMcp: unsandboxedMcp.approver,
  };
  let engine: Engine;
  try {
    engine = await createLoggedEngine(root, engineOptions);
  } catch (error) {
    dialog.showErrorBox("Lathe cannot open this folder", errorMessage(error));
    app.exit(1);
    return;
  }
  const engineHost = new EngineHost({
    engine,
    createEngine: (folder) => createLoggedEngine(folder, engineOptions),
    unsandboxedMcp,
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
      return connectionFor(event.sender, engineHost, providerKeys).router.dispatch(channel, request);
    });
  }

  // The folder picker only chooses a path; the page opens it through project.open like a typed one.
  /** A system dialog for our own page only; the chosen path, or undefined. */
  const pickPath = (channel: string, options: OpenDialogOptions) =>
    ipcMain.handle(channel, async (event): Promise<string | undefined> => {
      const frame = event.senderFrame;
      if (!isTrustedSender({ frameUrl: frame?.url, isMainFrame: frame?.parent === null, rendererUrl })) {
        console.error(`lathe: refused ${channel} from ${frame?.url ?? "a closed frame"}`);
        return undefined;
      }
      const window = BrowserWindow.fromWebContents(event.sender);
      const picked = window
        ? await dialog.showOpenDialog(window, options)
        : await dialog.showOpenDialog(options);
      return picked.canceled ? undefined : picked.filePaths[0];
    });
  pickPath(DESKTOP_PICK_FOLDER, { title: "Open a folder", properties: ["openDirectory", "createDirectory"] });
  pickPath(DESKTOP_PICK_GGUF, {
    title: "Add a GGUF model",
    properties: ["openFile"],
    filters: [{ name: "GGUF models", extensions: ["gguf"] }],
  });

  createWindow();
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });

  let engineClosed = false;
  app.on("before-quit", (event) => {
    if (engineClosed) return;
    event.preventDefault();
    Promise.all([...connections.keys()].map((id) => dropConnection(id)))
      .then(() => engineHost.close())
      .then(() => engine.close())
      .catch((error: unknown) => console.error("lathe: closing the engine failed:", error))
      .finally(() => {
        engineClosed = true;
        app.quit();
      });
  });
}

// Everything the main process logs also goes to <logs>/lathe.log (Help → Open Logs Folder).
try {
  teeConsoleToLog(console, new RotatingLogFile({ file: paths.logFile }));
} catch (error) {
  console.error(`lathe: cannot write the log file ${paths.logFile}; logging to the terminal only:`, error);
}
console.info(
  `lathe: Lathe ${app.getVersion()} (Electron ${process.versions.electron}, ${process.platform}-${process.arch})` +
    ` starting; LATHE_HOME ${paths.latheHome}`,
);

app.enableSandbox();
if (hasSmokeTestFlag(process.argv)) {
  smokeTest().then(
    (exitCode) => app.exit(exitCode),
    (error: unknown) => {
      console.error("lathe smoke-test: FAILED —", error);
      app.exit(1);
    },
  );
} else {
  // Code that reads LATHE_HOME itself (and the processes Lathe starts) sees the app's choice.
  process.env["LATHE_HOME"] = paths.latheHome;
  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit();
  });
  start().catch((error: unknown) => {
    console.error("lathe: the app failed to start:", error);
    app.exit(1);
  });
}
