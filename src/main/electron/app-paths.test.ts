import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appPaths, type AppLocation } from "./app-paths.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

function location(overrides: Partial<AppLocation> = {}): AppLocation {
  return {
    env: {},
    userData: path.resolve("/home/me/.config/Lathe"),
    logs: path.resolve("/home/me/.config/Lathe/logs"),
    isPackaged: true,
    resourcesPath: path.resolve("/opt/Lathe/resources"),
    appPath: path.resolve("/opt/Lathe/resources/app.asar"),
    ...overrides,
  };
}

describe("appPaths", () => {
  it("keeps Lathe's data in a folder of its own inside the OS's app-data folder unless LATHE_HOME says otherwise", () => {
    expect(appPaths(location()).latheHome).toBe(path.resolve("/home/me/.config/Lathe/home"));
    expect(appPaths(location({ env: { LATHE_HOME: "/srv/lathe-home" } })).latheHome).toBe(
      path.resolve("/srv/lathe-home"),
    );
    expect(appPaths(location({ env: { LATHE_HOME: "  " } })).latheHome).toBe(
      path.resolve("/home/me/.config/Lathe/home"),
    );
  });

  it("finds the bundled plugins beside app.asar in a packaged app", () => {
    expect(appPaths(location()).bundledPluginsDir).toBe(path.resolve("/opt/Lathe/resources/plugins"));
  });

  it("finds the bundled plugins in the project when run from the sources", () => {
    const paths = appPaths(location({ isPackaged: false, appPath: repoRoot, resourcesPath: "/elsewhere" }));
    expect(paths.bundledPluginsDir).toBe(path.join(repoRoot, "plugins"));
    expect(existsSync(path.join(paths.bundledPluginsDir, "word_count", "tool.yaml"))).toBe(true);
  });

  it("writes the log file into the OS's log folder", () => {
    const paths = appPaths(location({ logs: "/Users/me/Library/Logs/Lathe" }));
    expect(paths.logsDir).toBe(path.resolve("/Users/me/Library/Logs/Lathe"));
    expect(paths.logFile).toBe(path.join(path.resolve("/Users/me/Library/Logs/Lathe"), "lathe.log"));
  });
});
