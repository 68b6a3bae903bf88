import picomatch from "picomatch";

/** What a rule's pattern is matched against. */
export type SubjectKind = "path" | "command" | "host";

export interface CompiledPattern {
  test(value: string): boolean;
  /** Higher is more specific: exact literals beat prefixes and globs, longer literals beat shorter. */
  specificity: number;
}

const GLOB_CHARS = /[*?[\]{}]/;
const EXACT_BONUS = 1_000_000;

function literalLength(pattern: string): number {
  return pattern.replace(/[*?[\]{}]/g, "").length;
}

function wildcardRegex(pattern: string, caseInsensitive: boolean): RegExp {
  let out = "";
  for (const ch of pattern) {
    if (ch === "*") out += "[\\s\\S]*";
    else if (ch === "?") out += "[\\s\\S]";
    else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, caseInsensitive ? "i" : "");
}

/**
 * Compile a rule pattern for one kind of subject:
 * - `*` or `**` matches everything;
 * - `prefix:*` matches values starting with the prefix (commands: at a word boundary);
 * - a glob: picomatch for paths (`src/**`, `**\/.env`), `*` across anything for commands and hosts;
 * - a literal: the value itself, and for paths anything below it.
 */
export function compilePattern(pattern: string, kind: SubjectKind): CompiledPattern {
  if (pattern === "*" || pattern === "**") return { test: () => true, specificity: 0 };
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2);
    const test =
      kind === "command"
        ? (v: string) => v === prefix || v.startsWith(`${prefix} `)
        : (v: string) => v.startsWith(prefix);
    return { test, specificity: prefix.length };
  }
  if (GLOB_CHARS.test(pattern)) {
    if (kind === "path") {
      const match = picomatch(pattern, { dot: true });
      return { test: (v) => match(v), specificity: literalLength(pattern) };
    }
    const re = wildcardRegex(pattern, kind === "host");
    return { test: (v) => re.test(v), specificity: literalLength(pattern) };
  }
  if (kind === "path") {
    const dir = pattern.endsWith("/") ? pattern : `${pattern}/`;
    const base = pattern.replace(/\/+$/, "");
    return { test: (v) => v === base || v.startsWith(dir), specificity: EXACT_BONUS + pattern.length };
  }
  if (kind === "host") {
    const lower = pattern.toLowerCase();
    return { test: (v) => v.toLowerCase() === lower, specificity: EXACT_BONUS + pattern.length };
  }
  return { test: (v) => v === pattern, specificity: EXACT_BONUS + pattern.length };
}
