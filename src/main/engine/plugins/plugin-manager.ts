import path from "node:path";
import { loadSettings } from "../config/lathe-settings.ts";
import { TrustStore } from "../policy/trust-store.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { EntryChecker } from "./entry-check.ts";
import { didYouMean } from "./did-you-mean.ts";
import {
  defaultBundledDir,
  discoverFolders,
  projectToolsDir,
  toolsDirs,
  type PluginFolder,
  type ToolsDir,
} from "./plugin-discovery.ts";
import type { LookupAll } from "../builtin/web/fetch-target.ts";
import { PluginInstance, type PinCheck, type PluginStatus } from "./plugin-instance.ts";
import { PluginLogFiles, type PluginLogEntry } from "./plugin-log-files.ts";
import type { PluginLogSource } from "./isolate-host.ts";
import type { BridgeServices } from "./plugin-runtime-bridge.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { pluginManifestCache, type PluginManifestCache } from "./plugin-manifest-cache.ts";
import { PluginWatcher } from "./plugin-watcher.ts";
import { pinFix, pinRefusal } from "./project-plugins.ts";

export interface PluginManagerOptions {
  registry: ToolRegistry;
  /** The engine's canonical workspace root. */
  root: string;
  latheHome: string;
  /** The bundled plugins; defaults to `<repo>/plugins/`. */
  bundledDir?: string;
  /** Whether `<root>/.lathe/tools/` may load (the user trusted the project). */
  projectTrusted: boolean;
  trust?: TrustStore;
  /** Watch the tools directories for changes (default true). */
  watch?: boolean;
  /**
   * Every line a plugin logs (runtime.log, console) and every isolate restart, failed start and
   * failed call. They also go to `$LATHE_HOME/logs/plugins/<name>.log` unless `logFiles` is false.
   */
  onLog?(entry: PluginLogEntry): void;
  /** Write plugins' logs to their files (default true). */
  logFiles?: boolean;
  /** Told when folder changes are queued; the host applies them between turns. */
  onPendingChanges?(): void;
  /** How plugins' runtime.net.fetch resolves host names (tests inject one); default: system DNS. */
  lookup?: LookupAll;
}

/** A plugin's status as the manager reports it: the instance's, and whether the user turned it off. */
export interface ManagedPluginStatus extends PluginStatus {
  /** Listed in the user's `disabledPlugins`, so it is not loaded. */
  disabledByUser: boolean;
}

export type { PluginLogEntry } from "./plugin-log-files.ts";

function folderKey(folder: PluginFolder): string {
  return `${folder.layer}\u0000${folder.name}`;
}

/**
 * Loads plugin folders from the bundled, global and (trusted) project tools directories into
 * the registry, one isolate per plugin started lazily; watches the folders and queues changes,
 * which `applyPendingChanges()` applies — the host calls it between turns, never mid-turn. A
 * broken, unpinned or changed plugin is disabled with its reason; the others carry on.
 */
export class PluginManager {
  private readonly options: PluginManagerOptions;
  private readonly bundledDir: string;
  private readonly trust: TrustStore;
  private readonly cache: PluginManifestCache;
  private projectTrusted: boolean;
  private instances: PluginInstance[] = [];
  private pending = false;
  private watcher: PluginWatcher | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private watchWanted = false;
  /** `disabledPlugins` of the user's settings, as last read. */
  private userDisabled = new Set<string>();
  /** The instances refused because the user disabled them. */
  private readonly offByUser = new WeakSet<PluginInstance>();
  private readonly logFiles: PluginLogFiles | undefined;

  constructor(options: PluginManagerOptions) {
    this.options = options;
    this.bundledDir = options.bundledDir ?? defaultBundledDir();
    this.trust = options.trust ?? new TrustStore(options.latheHome);
    this.cache = pluginManifestCache(options.latheHome);
    this.projectTrusted = options.projectTrusted;
    this.logFiles =
      options.logFiles === false
        ? undefined
        : new PluginLogFiles(options.latheHome, {
            onError: (plugin, message) => {
              for (const instance of this.instances)
                if (instance.folder.name === plugin) instance.note(message);
            },
          });
  }

  private services(): BridgeServices {
    return this.options.lookup ? { lookup: this.options.lookup } : {};
  }

  private dirs(): ToolsDir[] {
    return toolsDirs({
      root: this.options.root,
      latheHome: this.options.latheHome,
      bundledDir: this.bundledDir,
      projectTrusted: this.projectTrusted,
    });
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Discover, validate and register every plugin, then start watching. No plugin code runs yet. */
  load(): Promise<void> {
    return this.serial(async () => {
      await this.reconcile();
      this.watchWanted = this.options.watch !== false;
      this.ensureWatching();
    });
  }

  private ensureWatching(): void {
    if (!this.watchWanted || this.watcher || this.closed) return;
    const watched: ToolsDir[] = [...this.dirs()];
    if (!this.projectTrusted) watched.push({ layer: "project", dir: projectToolsDir(this.options.root) });
    this.watcher = new PluginWatcher(watched, () => this.queueChanges(), PLUGIN_LIMITS.watchDebounceMs);
    this.watcher.start();
  }

  private queueChanges(): void {
    if (this.closed) return;
    this.pending = true;
    this.options.onPendingChanges?.();
  }

  /** Whether folder changes are waiting for `applyPendingChanges()`. */
  hasPendingChanges(): boolean {
    return this.pending;
  }

  /** Apply queued folder changes: reload what changed, drop what went, load what came. */
  applyPendingChanges(): Promise<void> {
    return this.serial(async () => {
      if (!this.pending || this.closed) return;
      this.pending = false;
      await this.reconcile();
    });
  }

  /** Re-read every folder and the trust pins now (after `lathe trust`, say), between turns. */
  reload(): Promise<void> {
    return this.serial(async () => {
      if (this.closed) return;
      this.pending = false;
      await this.reconcile();
    });
  }

  /** Trust (or distrust) the project's plugins from the next reload on. */
  setProjectTrusted(trusted: boolean): void {
    if (trusted === this.projectTrusted) return;
    this.projectTrusted = trusted;
    if (this.watcher) {
      this.watcher.close();
      this.watcher = undefined;
    }
    this.queueChanges();
  }

  private onLog(instance: PluginInstance, line: string, source: PluginLogSource): void {
    const entry: PluginLogEntry = {
      plugin: instance.folder.name,
      layer: instance.folder.layer,
      ...(instance.manifest ? { toolId: instance.manifest.name } : {}),
      source,
      line,
      at: Date.now(),
    };
    this.logFiles?.write(entry);
    this.options.onLog?.(entry);
  }

  private newInstance(folder: PluginFolder): PluginInstance {
    return new PluginInstance(
      folder,
      this.options.registry,
      (i, line, source) => this.onLog(i, line, source),
      this.services(),
      this.cache,
    );
  }

  /** The folders of one tools directory; an unreadable directory is reported, not fatal. */
  private async discover(tools: ToolsDir): Promise<PluginFolder[]> {
    try {
      return await discoverFolders(tools);
    } catch (err) {
      this.options.registry.reportDisabled({
        id: tools.dir,
        origin: { layer: tools.layer, kind: "plugin" },
        reason: `Cannot read the ${tools.layer} tools folder ${tools.dir} (${(err as Error).message}); no plugin in it is loaded. Fix the folder's permissions.`,
      });
      return [];
    }
  }

  private userSettingsFile(): string {
    return path.join(this.options.latheHome, "settings.json");
  }

  /** Re-read `disabledPlugins`; a settings file that cannot be read keeps the last list, and says so. */
  private readUserDisabled(): void {
    const file = this.userSettingsFile();
    try {
      this.userDisabled = new Set(loadSettings(file).disabledPlugins);
    } catch (err) {
      this.options.registry.reportDisabled({
        id: file,
        origin: { layer: "global", kind: "plugin" },
        reason: `Cannot read disabledPlugins from ${file} (${(err as Error).message}); the plugins you disabled before stay disabled, the others stay loaded. Fix the file.`,
      });
    }
  }

  /**
   * `disabledPlugins` entries that turn nothing off here, when that is surely a mistake: a
   * bundled or global name no such folder has, or a near miss of a plugin's name. (Any other
   * name may be a project plugin of another folder: the list is the user's, for every folder.)
   */
  private reportUnmatchedDisabled(folders: readonly PluginFolder[]): void {
    const file = this.userSettingsFile();
    for (const entry of this.userDisabled) {
      const colon = entry.indexOf(":");
      const layer = colon < 0 ? undefined : entry.slice(0, colon);
      const name = colon < 0 ? entry : entry.slice(colon + 1);
      const inLayer = folders.filter((f) => layer === undefined || f.layer === layer);
      if (inLayer.some((f) => f.name === name)) continue;
      const meant = didYouMean(
        name,
        inLayer.map((f) => f.name),
      );
      if (meant === undefined && (layer === undefined || layer === "project")) continue;
      const what = layer === undefined ? "plugin" : `${layer} plugin`;
      const suggestion =
        meant === undefined ? "" : ` Did you mean "${layer === undefined ? "" : `${layer}:`}${meant}"?`;
      this.options.registry.reportDisabled({
        id: entry,
        origin: { layer: "global", kind: "plugin" },
        reason: `disabledPlugins in ${file} names "${entry}", but no ${what} is called "${name}", so it turns nothing off.${suggestion}`,
        fix: `correct or remove "${entry}" in disabledPlugins of ${file}`,
      });
    }
  }

  /** The `disabledPlugins` entry that turns this folder off, if any. */
  private disabledEntry(folder: PluginFolder): string | undefined {
    const scoped = `${folder.layer}:${folder.name}`;
    if (this.userDisabled.has(scoped)) return scoped;
    return this.userDisabled.has(folder.name) ? folder.name : undefined;
  }

  private async reconcile(): Promise<void> {
    const { registry, root } = this.options;
    registry.clearDisabled((d) => d.origin.kind === "plugin" && d.origin.name === undefined);
    this.readUserDisabled();
    const folders = (await Promise.all(this.dirs().map((dir) => this.discover(dir)))).flat();
    const pins = this.projectTrusted ? this.trust.pins(root) : {};
    const pinCheck: PinCheck = (folder, hash, entryName) => {
      const reason = folder.layer === "project" ? pinRefusal(folder, hash, pins, entryName) : undefined;
      return reason === undefined ? undefined : { reason, fix: pinFix(folder, root) };
    };

    const previous = new Map(
      this.instances
        .filter((i) => (i.state !== "disabled" || i.hash) && !this.offByUser.has(i))
        .map((i) => [folderKey(i.folder), i]),
    );
    const candidates = folders.map((f) => this.newInstance(f));
    await Promise.all(candidates.map((c) => c.read()));

    const next: PluginInstance[] = [];
    const fresh: PluginInstance[] = [];
    const turnedOff: { instance: PluginInstance; entry: string }[] = [];
    for (const candidate of candidates) {
      const key = folderKey(candidate.folder);
      const entry = this.disabledEntry(candidate.folder);
      if (entry !== undefined) {
        next.push(candidate);
        turnedOff.push({ instance: candidate, entry });
        continue;
      }
      const old = previous.get(key);
      const verdict = pinCheck(
        candidate.folder,
        candidate.hash as string,
        candidate.source?.entryName ?? "index.js",
      );
      if (old && old.hash === candidate.hash && old.pinVerdict === verdict?.reason) {
        next.push(old);
        previous.delete(key);
      } else {
        next.push(candidate);
        fresh.push(candidate);
      }
    }
    // Whatever changed or went away is unloaded before its replacement registers.
    for (const old of this.instances) {
      if (next.includes(old)) continue;
      await old.deactivate();
      old.dispose();
    }

    // The entry checker (a scratch isolate) starts only for entries the cache has not seen pass.
    let checker: Promise<EntryChecker> | undefined;
    const lazyChecker = (): Promise<EntryChecker> =>
      (checker ??= import("./entry-check.ts").then(({ EntryChecker }) => new EntryChecker()));
    try {
      await Promise.all(fresh.map((c) => c.init(lazyChecker, pinCheck)));
    } finally {
      if (checker) (await checker).dispose();
    }
    for (const candidate of fresh) candidate.activate();
    // Refused only now: unloading the instance it replaces clears that folder's disabled entries.
    for (const { instance, entry } of turnedOff) {
      instance.refuse({
        reason: `You disabled the plugin ${instance.folder.name} (${instance.folder.layer}) with "${entry}" in disabledPlugins of ${this.userSettingsFile()}.`,
        fix: `remove "${entry}" from disabledPlugins in ${this.userSettingsFile()}, or press Enable in the app's Plugins panel`,
        byChoice: true,
      });
      this.offByUser.add(instance);
    }
    this.reportUnmatchedDisabled(folders);

    if (!this.projectTrusted) {
      const untrusted = await discoverFolders({ layer: "project", dir: projectToolsDir(root) });
      for (const folder of untrusted) {
        const instance = this.newInstance(folder);
        // Read (never run) so the disabled entry carries the tool id the folder declares.
        await instance.read();
        instance.refuse({
          reason: `This project is not trusted, so its plugin ${folder.name} is not loaded.`,
          fix: `review ${folder.dir}, then run \`lathe trust --root ${root}\``,
        });
        next.push(instance);
      }
    }
    this.instances = next;
    this.ensureWatching();
  }

  /** Every plugin folder: its layer, state, tool, version, hash, reason when disabled, isolate, logs. */
  status(): ManagedPluginStatus[] {
    return this.instances.map((i) => ({ ...i.status(), disabledByUser: this.offByUser.has(i) }));
  }

  /** Stop watching, unregister every plugin (draining calls in flight) and release the isolates. */
  close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    return this.serial(async () => {
      for (const instance of this.instances) {
        await instance.deactivate("close");
        instance.dispose();
      }
      this.instances = [];
      this.logFiles?.flush();
    });
  }
}
