import type { PluginLoadError } from "./plugin-load-error.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import type { ToolDefinition, ToolOrigin } from "../tools/contract.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { EntryChecker } from "./entry-check.ts";
import { pluginIsolateOptions } from "./plugin-isolate-options.ts";
import { IsolateHost, type IsolateStats, type PluginLogSource } from "./isolate-host.ts";
import type { PluginFolder } from "./plugin-discovery.ts";
import { hashPluginSource } from "./plugin-hash.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import type { PluginManifestCache } from "./plugin-manifest-cache.ts";
import type { BridgeServices } from "./plugin-runtime-bridge.ts";
import { readPluginSource, type PluginSource } from "./plugin-source.ts";
import { checkPluginSource } from "./plugin-source-check.ts";
import { pluginTool } from "./plugin-tool.ts";
import { errorMessage } from "../errors/error-message.ts";

/** Where a plugin is in its lifecycle: init → activate → deactivate → dispose, or disabled. */
type PluginState = "new" | "initialized" | "active" | "disabled" | "deactivated" | "disposed";

/** Why a plugin is not loaded, and the one command or action that loads it again. */
interface Refusal {
  reason: string;
  fix: string;
  /** The person turned it off (see DisabledTool.byChoice). */
  byChoice?: true;
}

/** Says why a plugin may not load (a project plugin not pinned, or changed), or undefined. */
export type PinCheck = (folder: PluginFolder, hash: string, entryName: string) => Refusal | undefined;

export interface PluginStatus {
  /** The folder name. */
  name: string;
  layer: PluginFolder["layer"];
  dir: string;
  state: PluginState;
  toolId?: string;
  version?: string;
  hash?: string;
  /** Why it is disabled. */
  reason?: string;
  /** The command or action that loads it again (with `reason`). */
  fix?: string;
  isolate?: IsolateStats;
  /** The last lines it logged (runtime.log, console), and Lathe's notes (`[lathe] …`: restarts, errors). */
  logs: string[];
}

/**
 * One plugin folder through its lifecycle. `init` reads and validates it (no plugin code runs),
 * `activate` registers its tool, `deactivate` unregisters it and drains calls in flight while
 * refusing new ones, `dispose` releases the isolate. A failure at any step disables the plugin
 * with a reason in the registry; nothing here throws at the manager.
 */
export class PluginInstance {
  readonly folder: PluginFolder;
  readonly origin: ToolOrigin;
  private readonly registry: ToolRegistry;
  private readonly onLog: (instance: PluginInstance, line: string, source: PluginLogSource) => void;
  state: PluginState = "new";
  source: PluginSource | undefined;
  hash: string | undefined;
  manifest: PluginManifest | undefined;
  reason: string | undefined;
  fix: string | undefined;
  /** What the pin check said when this instance was initialised (undefined: allowed or not checked). */
  pinVerdict: string | undefined;
  private tool: ToolDefinition<Record<string, unknown>, unknown> | undefined;
  private host: IsolateHost | undefined;
  private readonly logs: string[] = [];

  private readonly services: BridgeServices;

  private readonly cache: PluginManifestCache | undefined;

  constructor(
    folder: PluginFolder,
    registry: ToolRegistry,
    onLog: (instance: PluginInstance, line: string, source: PluginLogSource) => void,
    services: BridgeServices = {},
    cache?: PluginManifestCache,
  ) {
    this.services = services;
    this.cache = cache;
    this.folder = folder;
    this.origin = { layer: folder.layer, kind: "plugin", name: folder.name };
    this.registry = registry;
    this.onLog = onLog;
  }

  private log(line: string, source: PluginLogSource): void {
    this.logs.push(source === "lathe" ? `[lathe] ${line}` : line);
    if (this.logs.length > PLUGIN_LIMITS.logLinesKept)
      this.logs.splice(0, this.logs.length - PLUGIN_LIMITS.logLinesKept);
    this.onLog(this, line, source);
  }

  /** A line Lathe itself has to say about this plugin (a log file it cannot write, say). */
  note(line: string): void {
    this.log(line, "lathe");
  }

  /** The tool id the folder declares, as far as it can be read (the folder name otherwise). */
  private toolId(): string {
    const manifest = this.manifest ?? this.source?.manifest;
    if (manifest) return manifest.name;
    const doc = this.source?.yamlDoc;
    const name = doc && doc.errors.length === 0 ? doc.get("name") : undefined;
    return typeof name === "string" && name.trim() !== "" ? name.trim() : this.folder.name;
  }

  private disable(refusal: Refusal): void {
    this.state = "disabled";
    this.reason = refusal.reason;
    this.fix = refusal.fix;
    this.registry.reportDisabled({ id: this.toolId(), origin: this.origin, ...refusal });
  }

  /** Disable without validating the folder (turned off by the user, or its project not trusted). */
  refuse(refusal: Refusal): void {
    this.disable(refusal);
  }

  /**
   * What to do about the folder's problems: the first one's own fix when it is known (and
   * `lathe plugin check` for the others), else `lathe plugin check`, which lists every problem
   * with its fix; then how the plugin comes back.
   */
  private checkCommand(first?: PluginLoadError, others = 0): string {
    const check = `\`lathe plugin check ${this.folder.dir}\``;
    const what =
      first === undefined
        ? `run ${check} for every problem and its fix`
        : others > 0
          ? `${first.fix}, and run ${check} for the other problem${others > 1 ? "s" : ""}`
          : first.fix;
    const after =
      this.folder.layer === "project"
        ? "once the files are fixed, trust the project again (`lathe trust`) to approve them"
        : "the plugin reloads once the files are fixed";
    return `${what}; ${after}`;
  }

  /** Read the folder once (for its hash) without validating it. */
  async read(): Promise<string> {
    this.source ??= await readPluginSource(this.folder, this.cache);
    this.hash ??= hashPluginSource(this.source);
    return this.hash;
  }

  /**
   * Validate: pin, tool.yaml, TOOL.md, entry file (syntax, no imports, an `execute` export). The
   * checker is asked for (and started) only when the cache has not seen this entry text pass.
   */
  async init(checker: () => Promise<EntryChecker>, pinCheck?: PinCheck): Promise<void> {
    try {
      const hash = await this.read();
      const source = this.source as PluginSource;
      const refused = pinCheck?.(this.folder, hash, source.entryName);
      this.pinVerdict = refused?.reason;
      if (refused !== undefined) {
        this.disable(refused);
        return;
      }
      const { manifest, problems, cacheNote } = await checkPluginSource(source, checker, this.cache);
      if (cacheNote !== undefined) this.note(cacheNote);
      const [first] = problems;
      if (first) {
        const others = problems.length - 1;
        const more = others > 0 ? ` (and ${others} more problem${others > 1 ? "s" : ""})` : "";
        // The reason says what is wrong, the fix what to do: each once.
        this.disable({
          reason: `${first.file}: ${first.field} ${first.problem}${more}.`,
          fix: this.checkCommand(first, others),
        });
        return;
      }
      this.manifest = manifest;
      this.state = "initialized";
    } catch (err) {
      if (!ManifestError.isInstance(err))
        this.log(`unexpected failure while loading: ${(err as Error).stack ?? String(err)}`, "lathe");
      this.disable({ reason: errorMessage(err), fix: this.checkCommand() });
    }
  }

  /** Register the tool (its isolate starts on the first call). */
  activate(): void {
    if (this.state !== "initialized") return;
    const manifest = this.manifest as PluginManifest;
    const source = this.source as PluginSource;
    const host = new IsolateHost(
      pluginIsolateOptions(manifest, source, (line, from) => this.log(line, from)),
    );
    const tool = pluginTool({
      manifest,
      toolMd: source.toolMd.text,
      entryFile: source.entry.file,
      host,
      services: this.services,
    });
    try {
      // parseManifest checked its requires and input schema (or did, for the same tool.yaml,
      // before it was cached).
      this.registry.register(tool, this.origin, { checked: true });
    } catch (err) {
      host.dispose();
      this.disable({ reason: `${source.yaml.file}: ${(err as Error).message}`, fix: this.checkCommand() });
      return;
    }
    this.host = host;
    this.tool = tool;
    this.state = "active";
  }

  /**
   * Refuse new calls with a clear error, wait for the calls in flight, then unregister the tool.
   * It stays bound while it drains, so that a call arriving meanwhile is told why it is refused
   * (`why`: the folder is reloading, or Lathe is closing) rather than that no such tool exists.
   */
  async deactivate(why: "reload" | "close" = "reload"): Promise<void> {
    this.registry.clearDisabled(
      (d) =>
        d.origin.layer === this.origin.layer &&
        d.origin.kind === "plugin" &&
        d.origin.name === this.folder.name,
    );
    if (this.state !== "active") return;
    this.state = "deactivated";
    const id = this.manifest?.name ?? this.folder.name;
    try {
      await this.host?.drain(
        why === "reload"
          ? `${id} is being reloaded because its plugin folder (${this.folder.dir}) changed or was removed; call it again after this turn.`
          : `${id} was not run: Lathe is closing and has unloaded its plugins.`,
        this.manifest?.timeoutMs ?? PLUGIN_LIMITS.timeoutMs,
      );
    } finally {
      const tool = this.tool;
      if (tool !== undefined)
        this.registry.unregisterTool(
          this.folder.layer,
          tool.id,
          (origin) => origin.kind === "plugin" && origin.name === this.folder.name,
        );
    }
  }

  /** Release the isolate. Idempotent. */
  dispose(): void {
    if (this.state === "disposed") return;
    this.host?.dispose();
    this.host = undefined;
    this.state = "disposed";
  }

  status(): PluginStatus {
    return {
      name: this.folder.name,
      layer: this.folder.layer,
      dir: this.folder.dir,
      state: this.state,
      ...(this.manifest ? { toolId: this.manifest.name, version: this.manifest.version } : {}),
      ...(this.hash ? { hash: this.hash } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.fix ? { fix: this.fix } : {}),
      ...(this.host ? { isolate: this.host.stats() } : {}),
      logs: [...this.logs],
    };
  }
}
