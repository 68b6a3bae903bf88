import path from "node:path";
import picomatch from "picomatch";
import { ManifestError } from "../errors/manifest-error.ts";
import { isWithin } from "./canonical-path.ts";

/** The variables a path pattern may start with. */
const PATH_VARIABLES = ["workspace", "ad-hoc", "user-data", "session"] as const;
type PathVariable = (typeof PATH_VARIABLES)[number];

/** What each variable expands to: canonical absolute directories (possibly none). */
export type PathVariables = Record<PathVariable, readonly string[]>;

interface CompiledPattern {
  source: string;
  base: string;
  /** Matches the path relative to `base` (POSIX); undefined means "anything below base". */
  match: ((relative: string) => boolean) | undefined;
  /** The glob `match` was compiled from (relative to `base`), for messages. */
  glob: string;
}

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;
const MATCH_ALL = new Set(["", "**", "**/*"]);

function isKnownVariable(name: string): name is PathVariable {
  return (PATH_VARIABLES as readonly string[]).includes(name);
}

function compileOne(source: string, vars: PathVariables): CompiledPattern[] {
  let bases: readonly string[];
  let rest: string;
  const refs = [...source.matchAll(VARIABLE)];
  for (const ref of refs) {
    const name = ref[1] as string;
    if (!isKnownVariable(name)) {
      throw new ManifestError(
        `Unknown path variable {${name}} in pattern "${source}". Known variables: ${PATH_VARIABLES.map((v) => `{${v}}`).join(", ")}.`,
      );
    }
    if (ref.index !== 0) {
      throw new ManifestError(`Path variable {${name}} must start the pattern "${source}".`);
    }
  }
  const first = refs[0];
  if (first) {
    bases = vars[first[1] as PathVariable];
    rest = source.slice(first[0].length).replace(/^\/+/, "");
  } else if (path.isAbsolute(source)) {
    // Split an absolute pattern into its literal directory prefix and its glob part.
    const parts = source.split("/");
    const literal: string[] = [];
    while (parts.length > 0 && !picomatch.scan(parts[0] as string).isGlob)
      literal.push(parts.shift() as string);
    bases = [literal.join("/") || "/"];
    rest = parts.join("/");
  } else {
    bases = vars.workspace;
    rest = source.replace(/^\.\//, "");
  }
  if (rest.split("/").includes("..")) {
    throw new ManifestError(`Pattern "${source}" may not contain "..".`);
  }
  const match = MATCH_ALL.has(rest) ? undefined : picomatch(rest, { dot: true });
  return bases.filter((b) => b.length > 0).map((base) => ({ source, base, match, glob: rest }));
}

/**
 * A compiled list of path patterns. An empty expansion (say `{ad-hoc}` with no ad-hoc files)
 * yields no entries, so every check against it fails closed.
 */
export class PathScope {
  private readonly patterns: CompiledPattern[];

  private constructor(patterns: CompiledPattern[]) {
    this.patterns = patterns;
  }

  /** Throws ManifestError for an unknown variable or a malformed pattern. */
  static compile(sources: readonly string[] | undefined, vars: PathVariables): PathScope {
    return new PathScope((sources ?? []).flatMap((s) => compileOne(s, vars)));
  }

  get isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /** Whether the canonical absolute path is covered by one of the patterns. */
  allows(canonical: string): boolean {
    for (const p of this.patterns) {
      if (!isWithin(p.base, canonical)) continue;
      if (!p.match) return true;
      const relative = canonical === p.base ? "" : canonical.slice(p.base === "/" ? 1 : p.base.length + 1);
      if (relative !== "" && p.match(relative)) return true;
    }
    return false;
  }

  /** Whether every path below the canonical folder `dir` is covered (a pattern like `{workspace}/**` above it). */
  allowsAllBelow(dir: string): boolean {
    return this.patterns.some((p) => !p.match && isWithin(p.base, dir));
  }

  /** The directories the patterns are rooted in, for messages. */
  bases(): string[] {
    return [...new Set(this.patterns.map((p) => p.base))];
  }

  /** Whether every pattern covers all of its base (`{workspace}/**`), so bases() says it all. */
  get wholeFolders(): boolean {
    return this.patterns.every((p) => !p.match);
  }

  /** The patterns as absolute globs (`/ws/src/**`), for messages. */
  globs(): string[] {
    return [
      ...new Set(this.patterns.map((p) => `${p.base === "/" ? "" : p.base}/${p.match ? p.glob : "**"}`)),
    ];
  }
}

const PLACEHOLDER: PathVariables = {
  workspace: ["/w"],
  "ad-hoc": ["/a"],
  "user-data": ["/u"],
  session: ["/s"],
};

/** Compile-time check of a declaration's path patterns: unknown variables and ".." throw ManifestError. */
export function assertPatternsCompile(sources: readonly string[] | undefined): void {
  PathScope.compile(sources, PLACEHOLDER);
}
