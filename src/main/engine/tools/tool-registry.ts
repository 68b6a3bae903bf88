import { assertPatternsCompile } from "../capability/path-scope.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import { assertCompilable } from "./argument-validator.ts";
import { LAYERS, type AnyTool, type Layer, type ToolInfo, type ToolOrigin } from "./contract.ts";
import { unionRequirements, type RequirementSet } from "./requirement-set.ts";

/** A tool as bound in the registry: its definition, where it came from, what it shadows. */
export interface RegisteredTool {
  readonly tool: AnyTool;
  readonly origin: ToolOrigin;
  /** Implementations of the same name in earlier layers that this one hides. */
  readonly shadows: readonly ToolOrigin[];
}

const TOOL_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Every tool by flat name, across layers builtin → bundled → global → project. A later layer
 * shadows an earlier one of the same name; the registry keeps what was shadowed for inspection.
 */
export class ToolRegistry {
  private readonly byLayer = new Map<Layer, Map<string, { tool: AnyTool; origin: ToolOrigin }>>(
    LAYERS.map((l) => [l, new Map()]),
  );
  private bound: Map<string, RegisteredTool> | undefined;

  /** Add a tool to a layer. Throws ManifestError for a malformed id, schema or duplicate. */
  register(tool: AnyTool, origin: ToolOrigin): void {
    if (!TOOL_ID.test(tool.id)) {
      throw new ManifestError(
        `Tool id "${tool.id}" is invalid: use 1-64 letters, digits, "_" or "-", starting with a letter.`,
      );
    }
    const layer = this.byLayer.get(origin.layer) as Map<string, { tool: AnyTool; origin: ToolOrigin }>;
    const previous = layer.get(tool.id);
    if (previous) {
      throw new ManifestError(
        `Tool "${tool.id}" is declared twice in the ${origin.layer} layer (${describeOrigin(previous.origin)} and ${describeOrigin(origin)}). Rename one of them.`,
      );
    }
    try {
      assertPatternsCompile(tool.requires.fs?.read);
      assertPatternsCompile(tool.requires.fs?.write);
    } catch (err) {
      throw new ManifestError(`Tool "${tool.id}": ${(err as Error).message}`, { cause: err });
    }
    try {
      assertCompilable(tool.parameters);
    } catch (err) {
      throw new ManifestError(`Tool "${tool.id}" has an invalid parameters schema: ${(err as Error).message}`, {
        cause: err,
      });
    }
    layer.set(tool.id, { tool, origin });
    this.bound = undefined;
  }

  /** Remove every tool a layer holds from the given source (a plugin folder, an MCP server). */
  unregister(layer: Layer, predicate: (origin: ToolOrigin, id: string) => boolean): void {
    const entries = this.byLayer.get(layer) as Map<string, { tool: AnyTool; origin: ToolOrigin }>;
    for (const [id, entry] of entries) if (predicate(entry.origin, id)) entries.delete(id);
    this.bound = undefined;
  }

  private bind(): Map<string, RegisteredTool> {
    if (this.bound) return this.bound;
    const bound = new Map<string, RegisteredTool>();
    for (const layer of LAYERS) {
      for (const [id, entry] of this.byLayer.get(layer) as Map<string, { tool: AnyTool; origin: ToolOrigin }>) {
        const earlier = bound.get(id);
        const shadows = earlier ? [...earlier.shadows, earlier.origin] : [];
        bound.set(id, { tool: entry.tool, origin: entry.origin, shadows });
      }
    }
    this.bound = bound;
    return bound;
  }

  /** The implementation bound to a flat name, if any. */
  get(id: string): RegisteredTool | undefined {
    return this.bind().get(id);
  }

  /** Every bound tool, sorted by id. */
  all(): RegisteredTool[] {
    return [...this.bind().values()].sort((a, b) => (a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0));
  }

  ids(): string[] {
    return this.all().map((r) => r.tool.id);
  }

  /** The effective capability set: the manifest's requires plus every enabled tool's. */
  effectiveRequirements(manifestRequires: RequirementSet = {}): RequirementSet {
    return unionRequirements([manifestRequires, ...this.all().filter((r) => r.tool.enabled).map((r) => r.tool.requires)]);
  }
}

export function describeOrigin(origin: ToolOrigin): string {
  return origin.name ? `${origin.layer} ${origin.kind} "${origin.name}"` : `${origin.layer} ${origin.kind}`;
}

/** The published part of a bound tool, as hosts list it. */
export function toolInfo(entry: RegisteredTool): ToolInfo {
  const { tool, origin } = entry;
  return {
    id: tool.id,
    description: tool.description,
    parameters: tool.parameters,
    requires: tool.requires,
    readOnly: tool.readOnly,
    gated: tool.gated,
    kind: tool.kind,
    origin,
  };
}
