import type { MenuItemConstructorOptions } from "electron";

/** What the menu's own items do; main.ts supplies them (they open folders with `shell`). */
interface AppMenuActions {
  openLogsFolder(): void;
  openLatheHome(): void;
}

export const HELP_ITEMS = { openLogsFolder: "Open Logs Folder", openLatheHome: "Open Lathe Home" } as const;

/**
 * The application menu: Electron's standard menus (so copy, paste, undo, reload, zoom and the
 * window keys work as users expect on each OS) and a Help menu that opens the log folder and
 * Lathe's data folder. On macOS the first menu is the app's own (About, Hide, Quit).
 */
export function appMenuTemplate(
  platform: NodeJS.Platform,
  actions: AppMenuActions,
): MenuItemConstructorOptions[] {
  const help: MenuItemConstructorOptions = {
    role: "help",
    submenu: [
      { label: HELP_ITEMS.openLogsFolder, click: () => actions.openLogsFolder() },
      { label: HELP_ITEMS.openLatheHome, click: () => actions.openLatheHome() },
    ],
  };
  return [
    ...(platform === "darwin" ? [{ role: "appMenu" } as const] : []),
    { role: "fileMenu" },
    { role: "editMenu" },
    { role: "viewMenu" },
    { role: "windowMenu" },
    help,
  ];
}
