import path from "node:path";
import { resolveLatheHome } from "../engine/index.ts";

/** What the app knows about where it runs (Electron's `app` and `process.resourcesPath`). */
export interface AppLocation {
  env: NodeJS.ProcessEnv;
  /** `app.getPath("userData")`: the OS's app-data folder for Lathe. */
  userData: string;
  /** `app.getPath("logs")`: the OS's log folder for Lathe. */
  logs: string;
  /** `app.isPackaged`: running from an installer's files rather than the source tree. */
  isPackaged: boolean;
  /** `process.resourcesPath`: the folder that holds app.asar in a packaged app. */
  resourcesPath: string;
  /** `app.getAppPath()`: the project root when run unpackaged (`npm start`, `npm run dev`). */
  appPath: string;
}

interface AppPaths {
  /**
   * `$LATHE_HOME` when set, else a `home` folder inside the app-data folder (the CLI's default,
   * `~/.lathe`, is not used). Not the app-data folder itself: Chromium keeps its profile there
   * (cookies, caches), and a plugin that declares `{user-data}/**` must not reach it.
   */
  latheHome: string;
  /** The plugins shipped with the app: `resources/plugins` when packaged, `<project>/plugins` else. */
  bundledPluginsDir: string;
  /** The folder "Help → Open Logs Folder" opens. */
  logsDir: string;
  /** The app's log file in it (rotated by RotatingLogFile). */
  logFile: string;
}

const LOG_FILE_NAME = "lathe.log";
/** Lathe's own data inside the app-data folder, apart from Chromium's profile. */
const LATHE_HOME_FOLDER = "home";

/**
 * The desktop app's folders. The bundled plugins are passed to the engine explicitly: the engine's
 * own default is found relative to its source file, which electron-vite bundles into out/main, so
 * that default is wrong in every built app.
 */
export function appPaths(location: AppLocation): AppPaths {
  const logsDir = path.resolve(location.logs);
  return {
    latheHome: resolveLatheHome(location.env, path.join(location.userData, LATHE_HOME_FOLDER)),
    bundledPluginsDir: location.isPackaged
      ? path.join(location.resourcesPath, "plugins")
      : path.join(location.appPath, "plugins"),
    logsDir,
    logFile: path.join(logsDir, LOG_FILE_NAME),
  };
}
