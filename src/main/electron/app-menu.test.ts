import { describe, expect, it, vi } from "vitest";
import type { MenuItemConstructorOptions } from "electron";
import { appMenuTemplate, HELP_ITEMS } from "./app-menu.ts";

function helpItems(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  const help = template.find((menu) => menu.role === "help");
  if (!help || !Array.isArray(help.submenu)) throw new Error("no Help menu with items");
  return help.submenu;
}

function click(item: MenuItemConstructorOptions | undefined): void {
  if (!item?.click) throw new Error(`${item?.label ?? "the item"} does nothing`);
  (item.click as () => void)();
}

describe("appMenuTemplate", () => {
  it.each(["linux", "win32", "darwin"] as const)(
    "on %s, Help opens the logs folder and Lathe's home",
    (platform) => {
      const actions = { openLogsFolder: vi.fn(), openLatheHome: vi.fn() };
      const items = helpItems(appMenuTemplate(platform, actions));
      expect(items.map((item) => item.label)).toEqual(["Open Logs Folder", "Open Lathe Home"]);

      click(items.find((item) => item.label === HELP_ITEMS.openLogsFolder));
      expect(actions.openLogsFolder).toHaveBeenCalledTimes(1);
      expect(actions.openLatheHome).not.toHaveBeenCalled();

      click(items.find((item) => item.label === HELP_ITEMS.openLatheHome));
      expect(actions.openLatheHome).toHaveBeenCalledTimes(1);
    },
  );

  it("keeps the standard edit and window menus, and the app menu first only on macOS", () => {
    const actions = { openLogsFolder: vi.fn(), openLatheHome: vi.fn() };
    expect(appMenuTemplate("darwin", actions).map((menu) => menu.role)).toEqual([
      "appMenu",
      "fileMenu",
      "editMenu",
      "viewMenu",
      "windowMenu",
      "help",
    ]);
    expect(appMenuTemplate("linux", actions).map((menu) => menu.role)).toEqual([
      "fileMenu",
      "editMenu",
      "viewMenu",
      "windowMenu",
      "help",
    ]);
  });
});
