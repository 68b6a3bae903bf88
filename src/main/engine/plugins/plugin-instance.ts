import { ManifestError } from "../errors/manifest-error.ts";
import type { ToolDefinition, ToolOrigin } from "../tools/contract.ts";
import type { ToolRegistry } from "../tools/tool-registry.ts";
import type { EntryChecker } from "./entry-check.ts";
import { IsolateHost, type IsolateStats } from "./isolate-host.ts";
import type { PluginFolder } from "./plugin-discovery.ts";
import { hashPluginSource } from "./plugin-hash.ts";
import { PLUGIN_LIMITS } from "./plugin-limits.ts";
import { PluginLoadError } from "./plugin-load-error.ts";
import type { PluginManifest } from "./plugin-manifest.ts";
import type { PluginManifestCache } from "./plugin-manifest-cache.ts";
import { runtimeShape } from "./isolate-bootstrap.ts";
import type { BridgeServices } from "./plugin-runtime-bridge.ts";
import { entryUrl, readPluginSource, type PluginFile, type PluginSource } from "./plugin-source.ts";
import { pluginTool } from "./plugin-tool.ts";

/** Where a plugin is in its lifecycle: init → activate → deactivate → dispose, or disabled. */
export type PluginState = "new" | "initialized" | "active" | "disabled" | "deactivated" | "disposed";

/** Says why a plugin may not load (a project plugin not pinned, or changed), or undefined. */
export type PinCheck = (folder: PluginFolder, hash: string, entryName: string) => string | undefined;

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
  isolate?: IsolateStats;
  /** The last lines it logged (runtime.log, console), and isolate restarts. */
  logs: string[];
}

function fileProblem(file: PluginFile, what: string, field: string, fix: string): PluginLoadError {
  switch (file.problem) {
    case "too-large":
      return new PluginLoadError(
        file.file,
        field,
        `is ${file.size} bytes, which is more than a plugin's ${what} may be`,
        fix,
      );
    case "outside":
      return new PluginLoadError(
        file.file,
        field,
        "leads outside the plugin folder (a symlink?)",
        "put the real file inside the plugin folder",
      );
    case "unreadable":
      return new PluginLoadError(
        file.file,
        field,
        "cannot be read (not a regular file, or no permission)",
        fix,
      );
    case "unparsable":
      return new PluginLoadError(
        file.file,
        field,
        "could not be parsed at all",
        "write plain YAML: `key: value` lines, no deep nesting",
      );
    default:
      return new PluginLoadError(file.file, field, "is missing", fix);
  }
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
  private readonly onLog: (instance: PluginInstance, line: string) => void;
  state: PluginState = "new";
  source: PluginSource | undefined;
  hash: string | undefined;
  manifest: PluginManifest | undefined;
  reason: string | undefined;
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
    onLog: (instance: PluginInstance, line: string) => void,
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

  private log(line: string): void {
    this.logs.push(line);
    if (this.logs.length > PLUGIN_LIMITS.logLinesKept)
      this.logs.splice(0, this.logs.length - PLUGIN_LIMITS.logLinesKept);
    this.onLog(this, line);
  }

  private disable(reason: string): void {
    this.state = "disabled";
    this.reason = reason;
    this.registry.reportDisabled({
      id: this.manifest?.name ?? this.folder.name,
      origin: this.origin,
      reason,
    });
  }

  /** Disable without reading the folder (a project plugin of an untrusted project). */
  refuse(reason: string): void {
    this.disable(reason);
  }

  /** Read the folder once (for its hash) without validating it. */
  async read(): Promise<string> {
    this.source ??= await readPluginSource(this.folder, this.cache);
    this.hash ??= hashPluginSource(this.source);
    return this.hash;
  }

  /** The manifest: the cache's for this tool.yaml text, else parsed and validated (and kept). */
  private async validManifest(source: PluginSource): Promise<PluginManifest> {
    if (source.manifest) return source.manifest;
    if (source.yamlDoc === undefined || source.yaml.text === undefined) {
      throw fileProblem(
        source.yaml,
        "tool.yaml",
        "the file",
        "add tool.yaml with name, version, description and input_schema (see docs/plugins.md)",
      );
    }
    const { parseManifest } = await import("./plugin-manifest.ts");
    const manifest = parseManifest(source.yaml.file, source.yamlDoc);
    this.cache?.rememberManifest(source.yaml.text, manifest);
    return manifest;
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
      this.pinVerdict = refused;
      if (refused !== undefined) {
        this.disable(refused);
        return;
      }
      this.manifest = await this.validManifest(source);
      if (source.toolMd.problem !== undefined && source.toolMd.problem !== "missing") {
        throw fileProblem(
          source.toolMd,
          "TOOL.md",
          "the file",
          "keep TOOL.md to when to use the tool, when not, and a few examples",
        );
      }
      if (source.entry.text === undefined) {
        throw fileProblem(
          source.entry,
          "entry",
          'the entry file (field "entry" of tool.yaml)',
          `add ${source.entryName} exporting \`async function execute(args, runtime)\`, or point "entry" at the file that does`,
        );
      }
      if (this.cache?.entryChecked(source.entry.text) !== true) {
        await (await checker()).check(source.entry.file, source.entry.text);
        this.cache?.rememberEntryChecked(source.entry.text);
      }
      this.state = "initialized";
    } catch (err) {
      if (!ManifestError.isInstance(err))
        this.log(`unexpected failure while loading: ${(err as Error).stack ?? String(err)}`);
      this.disable(err instanceof Error ? err.message : String(err));
    }
  }

  /** Register the tool (its isolate starts on the first call). */
  activate(): void {
    if (this.state !== "initialized") return;
    const manifest = this.manifest as PluginManifest;
    const source = this.source as PluginSource;
    const host = new IsolateHost({
      name: manifest.name,
      source: source.entry.text as string,
      filename: entryUrl(source.entry.file),
      shape: runtimeShape(manifest.requires),
      memoryMb: manifest.memoryMb,
      // WebAssembly, when declared, gets a budget as large as the heap, counted separately.
      wasmMb: manifest.wasm ? manifest.memoryMb : 0,
      cpuTimeoutMs: manifest.cpuMs,
      onLog: (line) => this.log(line),
    });
    const tool = pluginTool({
      manifest,
      toolMd: source.toolMd.text,
      entryFile: source.entry.file,
      host,
      services: this.services,
    });
    try {
      // parseManifest checked the input schema (or did, for the same tool.yaml, before it was cached).
      this.registry.register(tool, this.origin, { schemaChecked: true });
    } catch (err) {
      host.dispose();
      this.disable(`${source.yaml.file}: ${(err as Error).message}`);
      return;
    }
    this.host = host;
    this.tool = tool;
    this.state = "active";
  }

  /** Unregister the tool, refuse new calls with a clear error, and wait for calls in flight. */
  async deactivate(): Promise<void> {
    this.registry.clearDisabled(
      (d) =>
        d.origin.layer === this.origin.layer &&
        d.origin.kind === "plugin" &&
        d.origin.name === this.folder.name,
    );
    if (this.state !== "active") return;
    this.state = "deactivated";
    this.registry.unregister(
      this.folder.layer,
      (origin, id) => origin.kind === "plugin" && origin.name === this.folder.name && id === this.tool?.id,
    );
    const id = this.manifest?.name ?? this.folder.name;
    await this.host?.drain(
      `${id} is being reloaded because its plugin folder (${this.folder.dir}) changed or was removed; call it again after this turn.`,
      this.manifest?.timeoutMs ?? PLUGIN_LIMITS.timeoutMs,
    );
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
      ...(this.host ? { isolate: this.host.stats() } : {}),
      logs: [...this.logs],
    };
  }
}
