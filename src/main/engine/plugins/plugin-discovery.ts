import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { installRoot } from "../config/install-root.ts";
import type { Layer } from "../tools/contract.ts";

/** The layers plugins come from, earliest first (a later one shadows an earlier one by tool name). */
export type PluginLayer = Extract<Layer, "bundled" | "global" | "project">;

/** One tools directory: where a layer's plugin folders live. */
export interface ToolsDir {
  layer: PluginLayer;
  dir: string;
}

/** One plugin folder found in a tools directory. */
export interface PluginFolder {
  layer: PluginLayer;
  /** The folder name: the plugin's name in origins, pins and messages. */
  name: string;
  dir: string;
}

/** The plugins shipped with Lathe: `plugins/` in the folder Lathe is installed in. */
export function defaultBundledDir(): string {
  return path.join(installRoot(), "plugins");
}

export function globalToolsDir(latheHome: string): string {
  return path.join(latheHome, "tools");
}

export function projectToolsDir(root: string): string {
  return path.join(root, ".lathe", "tools");
}

/** The tools directories of every layer, earliest first; the project's only when it is trusted. */
export function toolsDirs(input: {
  root: string;
  latheHome: string;
  bundledDir: string;
  projectTrusted: boolean;
}): ToolsDir[] {
  const dirs: ToolsDir[] = [
    { layer: "bundled", dir: input.bundledDir },
    { layer: "global", dir: globalToolsDir(input.latheHome) },
  ];
  if (input.projectTrusted) dirs.push({ layer: "project", dir: projectToolsDir(input.root) });
  return dirs;
}

/**
 * The plugin folders of one tools directory, sorted by name: every sub-folder (a symlink to a
 * folder counts) whose name does not start with "." or "_". A missing directory has none.
 */
export async function discoverFolders(tools: ToolsDir): Promise<PluginFolder[]> {
  let names: string[];
  try {
    names = await readdir(tools.dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
  const folders: PluginFolder[] = [];
  for (const name of names.sort()) {
    if (name.startsWith(".") || name.startsWith("_")) continue;
    const dir = path.join(tools.dir, name);
    const info = await stat(dir).catch(() => undefined);
    if (info?.isDirectory()) folders.push({ layer: tools.layer, name, dir });
  }
  return folders;
}
