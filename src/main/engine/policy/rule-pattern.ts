import os from "node:os";
import path from "node:path";
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
 * A path pattern in the form the paths it is matched against have (relative to the workspace,
 * or absolute and canonical): `~` is the home folder, and `./`, `//`, `.` and `..` segments are
 * resolved, so `./secrets/k` names what `secrets/k` names (a pattern without a slash is read
 * before this: see isNamePattern). A trailing `/` stays on a literal (a folder, and what is below
 * it) and goes from a glob (`src/**\/` is `src/**`).
 */
function normalPathPattern(pattern: string): string {
  const expanded =
    pattern === "~" || pattern.startsWith("~/") ? `${os.homedir()}${pattern.slice(1)}` : pattern;
  const normal = path.posix.normalize(expanded);
  return GLOB_CHARS.test(normal) && normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

/**
 * Whether a path pattern names a file or folder by its name at any depth of the workspace, as a
 * `.gitignore` line without a slash does: `*.pem`, `.env`, `secrets/` (a trailing slash aside).
 * One with a slash before its end, or written from `./`, `/` or `~`, is anchored where it says.
 */
function isNamePattern(written: string): boolean {
  if (written.startsWith("./") || written.startsWith("~")) return false;
  const body = written.replace(/\/+$/, "");
  return body !== "" && body !== "." && body !== ".." && !body.includes("/");
}

/**
 * A name pattern (see isNamePattern): a workspace path (relative) matches when one of its
 * names does, so a folder of that name covers everything below it (`*.pem` covers
 * `certs/a.pem` and what is in a folder `keys.pem/`). Absolute paths (outside the workspace)
 * are not matched by it, as no relative pattern matches them.
 */
function namePattern(name: string): (value: string) => boolean {
  const matches = GLOB_CHARS.test(name) ? picomatch(name, { dot: true }) : (v: string) => v === name;
  return (value) => !path.isAbsolute(value) && value.split("/").some((part) => matches(part));
}

/**
 * Compile a rule pattern for one kind of subject:
 * - `*` or `**` matches everything;
 * - `prefix:*` matches values starting with the prefix (commands: at a word boundary);
 * - a path pattern without a slash (`*.pem`, `.env`) matches that name at any depth of the
 *   workspace, and what is below a folder of that name (see isNamePattern);
 * - a glob: picomatch for paths (`src/**`, `**\/.env`), `*` across anything for commands and hosts;
 * - a literal: the value itself, and for paths anything below it.
 */
export function compilePattern(written: string, kind: SubjectKind): CompiledPattern {
  const pattern = kind === "path" ? normalPathPattern(written) : written;
  if (kind === "path" && pattern !== "*" && pattern !== "**" && isNamePattern(written)) {
    const name = pattern.replace(/\/+$/, "");
    const specificity = GLOB_CHARS.test(name) ? literalLength(name) : EXACT_BONUS + name.length;
    return { test: namePattern(name), specificity };
  }
  // `.` is the workspace: every path in it (those outside are given absolute).
  if (kind === "path" && (pattern === "." || pattern === "./"))
    return { test: (v) => !path.isAbsolute(v), specificity: 0 };
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
