import { createHash } from "node:crypto";
import { assertPatternsCompile } from "../capability/path-scope.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import { stableStringify } from "./stable-stringify.ts";
import { assertCompilable } from "./argument-validator.ts";
import { parseHostPatterns } from "../capability/host-pattern.ts";
import { LAYERS, type AnyTool, type Layer, type ToolInfo, type ToolOrigin } from "./contract.ts";
import { lockedLookalike } from "./locked-tools.ts";
import { unionRequirements, type RequirementSet } from "./requirement-set.ts";
import { TOOL_ID } from "./tool-id.ts";

/** A tool as bound in the registry: its definition, where it came from, what it shadows. */
export interface RegisteredTool {
  readonly tool: AnyTool;
  readonly origin: ToolOrigin;
  /** Implementations of the same name in earlier layers that this one hides. */
  readonly shadows: readonly ToolOrigin[];
  /** sha256 of what the model and the policy see of the tool: id, description, schema, requires, flags. */
  readonly descriptorHash: string;
}

/** A tool that is not bound because it failed to load or lost its approval. */
export interface DisabledTool {
  /** The tool id, or the plugin/server name when the whole source failed. */
  id: string;
  origin: ToolOrigin;
  /** What happened: why it is not loaded. */
  reason: string;
  /** The one command or action that loads it again, when there is one. */
  fix?: string;
  /**
   * Turned off on purpose by the person (`disabledPlugins`): nothing is wrong, so one-shot
   * commands do not repeat it on every run (`lathe tools` still lists it).
   */
  byChoice?: true;
}

/** A registered tool; its descriptor hash is computed when first asked for (the audit of a call). */
class Entry {
  readonly tool: AnyTool;
  readonly origin: ToolOrigin;
  private hash: string | undefined;

  constructor(tool: AnyTool, origin: ToolOrigin) {
    this.tool = tool;
    this.origin = origin;
  }

  get descriptorHash(): string {
    this.hash ??= descriptorHash(this.tool);
    return this.hash;
  }

  /** As bound under its name, with what it shadows. */
  bound(shadows: readonly ToolOrigin[]): RegisteredTool {
    const hash = (): string => this.descriptorHash;
    return {
      tool: this.tool,
      origin: this.origin,
      shadows,
      get descriptorHash() {
        return hash();
      },
    };
  }
}

/** The content hash of a tool's published descriptor. */
function descriptorHash(tool: AnyTool): string {
  const { id, description, parameters, requires, readOnly, gated, kind } = tool;
  return createHash("sha256")
    .update(stableStringify({ id, description, parameters, requires, readOnly, gated, kind }))
    .digest("hex");
}

/** Throws ManifestError when a tool's declared paths or hosts cannot be compiled. */
export function checkRequires(tool: AnyTool): void {
  try {
    assertPatternsCompile(tool.requires.fs?.read);
    assertPatternsCompile(tool.requires.fs?.write);
  } catch (err) {
    throw new ManifestError(`Tool "${tool.id}": ${(err as Error).message}`, { cause: err });
  }
  try {
    parseHostPatterns(tool.requires.net?.hosts);
  } catch (err) {
    throw new ManifestError(`Tool "${tool.id}": requires.net.hosts entry ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Every tool by flat name, across layers builtin → bundled → global → project. A later layer
 * shadows an earlier one of the same name; the registry keeps what was shadowed for inspection.
 * The locked built-ins (LOCKED_TOOL_IDS) cannot be shadowed: registering one of their names in
 * another layer is refused.
 */
export class ToolRegistry {
  private readonly byLayer = new Map<Layer, Map<string, Entry>>(LAYERS.map((l) => [l, new Map()]));
  /**
   * Every name's binding, kept up to date name by name as tools come and go: an MCP server's 300
   * tools are registered one by one, each after a look-up of whether its name is taken, and
   * rebinding every name at each of those look-ups made binding them quadratic (40 ms of a
   * `lathe tools` for 300 tools, 0.6 s for 1,200).
   */
  private bound: Map<string, RegisteredTool> | undefined;
  /** `bound`'s tools sorted by id, until the next change. */
  private sorted: RegisteredTool[] | undefined;
  /** Bumped at every change of a binding (see revision). */
  private changes = 0;
  private readonly disabled = new Map<string, DisabledTool>();

  /** Record a tool (or a whole plugin/server) that could not load, with the reason and the fix. */
  reportDisabled(entry: DisabledTool): void {
    this.disabled.set(
      `${entry.origin.layer}\u0000${entry.origin.kind}\u0000${entry.origin.name ?? ""}\u0000${entry.id}`,
      entry,
    );
  }

  /** Forget the disabled entries of one source (before it reloads). */
  clearDisabled(predicate: (entry: DisabledTool) => boolean): void {
    for (const [k, v] of this.disabled) if (predicate(v)) this.disabled.delete(k);
  }

  disabledTools(): DisabledTool[] {
    return [...this.disabled.values()];
  }

  /**
   * The disabled tool a call by this name meant, when no tool of that name is bound: the one of
   * the latest layer (project over global over bundled), as shadowing would have picked it.
   */
  disabledTool(id: string): DisabledTool | undefined {
    let found: DisabledTool | undefined;
    for (const entry of this.disabled.values()) {
      if (entry.id !== id || entry.origin.name === undefined) continue;
      if (!found || LAYERS.indexOf(entry.origin.layer) >= LAYERS.indexOf(found.origin.layer)) found = entry;
    }
    return found;
  }

  /**
   * Add a tool to a layer. Throws ManifestError for a malformed id, requirement, schema or
   * duplicate. The declarations (paths and hosts in `requires`, the parameters schema against the
   * JSON Schema meta-schema) are checked unless `checked` says the caller did (a plugin's
   * manifest is checked when it is parsed) or the tool is a built-in (Lathe's own declarations:
   * builtin-tools.test.ts checks each one): compiling the meta-schema costs more than the rest
   * of a start.
   */
  register(tool: AnyTool, origin: ToolOrigin, options: { checked?: boolean } = {}): void {
    if (!TOOL_ID.test(tool.id)) {
      throw new ManifestError(
        `Tool id "${tool.id}" is invalid: use 1-64 letters, digits, "_" or "-", starting with a letter.`,
      );
    }
    const locked = origin.layer === "builtin" ? undefined : lockedLookalike(tool.id);
    if (locked !== undefined) {
      const what =
        locked === tool.id
          ? `"${tool.id}" is one of Lathe's locked built-in tools`
          : `"${tool.id}" differs only in case, "_" or "-" from "${locked}", one of Lathe's locked built-in tools`;
      throw new ManifestError(
        `Tool "${tool.id}" (${describeOrigin(origin)}) cannot be loaded: ${what}, which plugins and MCP servers cannot replace. Give the tool another name.`,
      );
    }
    const layer = this.byLayer.get(origin.layer) as Map<string, Entry>;
    const previous = layer.get(tool.id);
    if (previous) {
      throw new ManifestError(
        `Tool "${tool.id}" is declared twice in the ${origin.layer} layer (${describeOrigin(previous.origin)} and ${describeOrigin(origin)}). Rename one of them.`,
      );
    }
    const check = origin.layer !== "builtin" && options.checked !== true;
    if (check) checkRequires(tool);
    try {
      if (check) assertCompilable(tool.parameters);
    } catch (err) {
      throw new ManifestError(
        `Tool "${tool.id}" has an invalid parameters schema: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    layer.set(tool.id, new Entry(tool, origin));
    this.rebind(tool.id);
  }

  /** Remove every tool a layer holds from the given source (a plugin folder, an MCP server). */
  unregister(layer: Layer, predicate: (origin: ToolOrigin, id: string) => boolean): void {
    const entries = this.byLayer.get(layer) as Map<string, Entry>;
    for (const [id, entry] of entries) {
      if (!predicate(entry.origin, id)) continue;
      entries.delete(id);
      this.rebind(id);
    }
  }

  /**
   * Remove the tool `id` of a layer when `predicate` says it is the source's (a plugin's one
   * tool). Looked up by name: a plugin unloading walked the layer's every tool, so closing an
   * engine with 300 plugins made 90,000 checks.
   */
  unregisterTool(layer: Layer, id: string, predicate: (origin: ToolOrigin) => boolean): void {
    const entries = this.byLayer.get(layer) as Map<string, Entry>;
    const entry = entries.get(id);
    if (entry === undefined || !predicate(entry.origin)) return;
    entries.delete(id);
    this.rebind(id);
  }

  /** The binding of one name across the layers: the latest layer's, shadowing the earlier ones. */
  private bindingOf(id: string): RegisteredTool | undefined {
    let bound: RegisteredTool | undefined;
    for (const layer of LAYERS) {
      const entry = (this.byLayer.get(layer) as Map<string, Entry>).get(id);
      if (entry) bound = entry.bound(bound ? [...bound.shadows, bound.origin] : []);
    }
    return bound;
  }

  /** Bring one name's binding up to date after its entries changed. */
  private rebind(id: string): void {
    this.sorted = undefined;
    this.changes += 1;
    if (!this.bound) return; // bound whole on the next look-up
    const binding = this.bindingOf(id);
    if (binding) this.bound.set(id, binding);
    else this.bound.delete(id);
  }

  private bind(): Map<string, RegisteredTool> {
    if (this.bound) return this.bound;
    const bound = new Map<string, RegisteredTool>();
    for (const layer of LAYERS) {
      for (const id of (this.byLayer.get(layer) as Map<string, Entry>).keys()) {
        if (!bound.has(id)) bound.set(id, this.bindingOf(id) as RegisteredTool);
      }
    }
    this.bound = bound;
    return bound;
  }

  /** The implementation bound to a flat name, if any. */
  get(id: string): RegisteredTool | undefined {
    return this.bind().get(id);
  }

  /**
   * A number that changes whenever a tool is registered or unregistered: what was derived from
   * `all()` at one revision holds until the next (tool definitions themselves are immutable).
   */
  get revision(): number {
    return this.changes;
  }

  /** Every bound tool, sorted by id. */
  all(): RegisteredTool[] {
    this.sorted ??= [...this.bind().values()].sort((a, b) =>
      a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0,
    );
    return [...this.sorted];
  }

  ids(): string[] {
    return this.all().map((r) => r.tool.id);
  }

  /** The effective capability set: the manifest's requires plus every enabled tool's. */
  effectiveRequirements(manifestRequires: RequirementSet = {}): RequirementSet {
    return unionRequirements([
      manifestRequires,
      ...this.all()
        .filter((r) => r.tool.enabled)
        .map((r) => r.tool.requires),
    ]);
  }
}

export function describeOrigin(origin: ToolOrigin): string {
  return origin.name ? `${origin.layer} ${origin.kind} "${origin.name}"` : `${origin.layer} ${origin.kind}`;
}

/**
 * The published part of a bound tool, as hosts list it. `deferral` is the deferral decision
 * (see tools/deferral.ts); without it, a tool counts as deferred when it asks to be.
 */
export function toolInfo(
  entry: RegisteredTool,
  deferral?: { deferred: ReadonlySet<string>; byConfig: readonly string[] },
): ToolInfo {
  const { tool, origin } = entry;
  const deferred = deferral ? deferral.deferred.has(tool.id) : tool.defer === true;
  const byConfig = deferral ? deferral.byConfig.includes(tool.id) : deferred;
  return {
    id: tool.id,
    description: tool.description,
    parameters: tool.parameters,
    requires: tool.requires,
    readOnly: tool.readOnly,
    gated: tool.gated,
    kind: tool.kind,
    origin,
    deferred,
    ...(deferred ? { deferredBy: byConfig ? ("config" as const) : ("budget" as const) } : {}),
    shadows: entry.shadows.map((shadowed) => ({ ...shadowed })),
  };
}
