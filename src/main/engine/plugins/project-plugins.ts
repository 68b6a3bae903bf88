import { realpath } from "node:fs/promises";
import path from "node:path";
import { TrustStore } from "../policy/trust-store.ts";
import { discoverFolders, projectToolsDir, type PluginFolder } from "./plugin-discovery.ts";
import { hashPluginSource } from "./plugin-hash.ts";
import { readPluginSource } from "./plugin-source.ts";

/** A project plugin as `lathe trust` lists it before the user approves it. */
export interface ProjectPluginInfo {
  name: string;
  dir: string;
  hash: string;
  /** Against the pins of the project's last trust: unchanged, changed since, or never pinned. */
  pinned: "match" | "changed" | "new";
}

/** The key a plugin's content hash is pinned under in the TrustStore. */
export function pinKey(name: string): string {
  return `plugin:${name}`;
}

/**
 * Compare a project plugin's hash with its pin; the reason it may not load, or undefined. The
 * fix is the same for both reasons: review the folder, then `lathe trust` (see pinFix).
 */
export function pinRefusal(
  folder: PluginFolder,
  hash: string,
  pins: Record<string, string>,
  entryName = "index.js",
): string | undefined {
  const pinned = pins[pinKey(folder.name)];
  if (pinned === hash) return undefined;
  return pinned === undefined
    ? `The project plugin ${folder.name} was added after you trusted this project, so it is not loaded until you review it and trust the project again.`
    : `tool.yaml/TOOL.md/${entryName} of ${folder.name} changed since you trusted this project, so it is not loaded until you review it and trust the project again.`;
}

/** What loads a project plugin its pin refused (or whose project is not trusted) again. */
export function pinFix(folder: PluginFolder, root: string): string {
  return `review ${folder.dir}, then run \`lathe trust --root ${root}\` (or approve it in the app's Plugins panel)`;
}

/** Every plugin folder in `<root>/.lathe/tools/` with its content hash and pin state. */
export async function describeProjectPlugins(root: string, latheHome: string): Promise<ProjectPluginInfo[]> {
  const realRoot = await realpath(path.resolve(root));
  const pins = new TrustStore(latheHome).pins(realRoot);
  const folders = await discoverFolders({ layer: "project", dir: projectToolsDir(realRoot) });
  return Promise.all(
    folders.map(async (folder) => {
      const hash = hashPluginSource(await readPluginSource(folder));
      const pinned = pins[pinKey(folder.name)];
      return {
        name: folder.name,
        dir: folder.dir,
        hash,
        pinned: pinned === hash ? "match" : pinned === undefined ? "new" : "changed",
      };
    }),
  );
}

/**
 * Pin the current content of every project plugin (call it when the user trusts the project,
 * after `TrustStore.trust`). Returns what was pinned. Throws when the project is not trusted.
 */
export async function pinProjectPlugins(root: string, latheHome: string): Promise<ProjectPluginInfo[]> {
  const realRoot = await realpath(path.resolve(root));
  const plugins = await describeProjectPlugins(realRoot, latheHome);
  const trust = new TrustStore(latheHome);
  if (!trust.isTrusted(realRoot)) {
    throw new Error(
      `Cannot pin the plugins of ${realRoot}: the project is not trusted. Trust it first (lathe trust --root ${realRoot}).`,
    );
  }
  if (plugins.length > 0)
    trust.pin(realRoot, Object.fromEntries(plugins.map((p) => [pinKey(p.name), p.hash])));
  return plugins.map((p) => ({ ...p, pinned: "match" as const }));
}
