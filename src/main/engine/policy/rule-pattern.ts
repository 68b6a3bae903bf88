import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";

/** What a rule's pattern is matched against. */
export type SubjectKind = "path" | "command" | "host";

export interface CompiledPattern {
  test(value: string): boolean;
  /** Higher is more specific: exact literals beat prefixes and globs, longer literals beat shorter. */
  specificity: number;
  /**
   * A key that every value the pattern matches has among its `valueKeys`, so a ruleset can look
   * up the rules that may match a value instead of trying them all (see rule-index.ts). Absent
   * when the pattern may match a value without a key of its own (`*`, `**\/*.ts`, `git*`).
   */
  key?: string;
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
 * A picomatch matcher built on its first use: a ruleset compiles every rule of a permission at
 * once, but tries only those whose key a value has (rule-index.ts), and building thousands of
 * regular expressions that are never tried cost more than the look-up saves.
 */
function lazyGlob(glob: string): (value: string) => boolean {
  let match: ((value: string) => boolean) | undefined;
  return (value) => (match ??= picomatch(glob, { dot: true }))(value);
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
  const matches = GLOB_CHARS.test(name) ? lazyGlob(name) : (v: string) => v === name;
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
    return withKey({ test: namePattern(name), specificity }, nameKey(name));
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
    // A command's prefix ends at a word; a path's or host's may end anywhere, so it has no key.
    return withKey({ test, specificity: prefix.length }, kind === "command" ? `w:${prefix}` : undefined);
  }
  if (GLOB_CHARS.test(pattern)) {
    if (kind === "path") {
      const match = lazyGlob(pattern);
      return withKey({ test: (v) => match(v), specificity: literalLength(pattern) }, pathGlobKey(pattern));
    }
    let re: RegExp | undefined;
    const test = (v: string) => (re ??= wildcardRegex(pattern, kind === "host")).test(v);
    const key = kind === "host" ? hostGlobKey(pattern) : commandGlobKey(pattern);
    return withKey({ test, specificity: literalLength(pattern) }, key);
  }
  if (kind === "path") {
    const dir = pattern.endsWith("/") ? pattern : `${pattern}/`;
    const base = pattern.replace(/\/+$/, "");
    return {
      test: (v) => v === base || v.startsWith(dir),
      specificity: EXACT_BONUS + pattern.length,
      key: `p:${base}`,
    };
  }
  if (kind === "host") {
    const lower = pattern.toLowerCase();
    return {
      test: (v) => v.toLowerCase() === lower,
      specificity: EXACT_BONUS + pattern.length,
      key: `h:${lower}`,
    };
  }
  return { test: (v) => v === pattern, specificity: EXACT_BONUS + pattern.length, key: `w:${pattern}` };
}

function withKey(pattern: CompiledPattern, key: string | undefined): CompiledPattern {
  return key === undefined ? pattern : { ...pattern, key };
}

/**
 * Characters picomatch may read as more than themselves (globs, braces, extglobs, negation,
 * escapes): a key is only taken from the text before the first of them.
 */
const PICOMATCH_SPECIAL = /[*?[\]{}()!+@\\|^$]/;
/** A name glob `*.pem`: a star, then a literal suffix from a dot. */
const STAR_SUFFIX = /^\*(\.[^*?[\]{}()!+@\\|^$/]+)$/;

/** A name pattern's key: the name itself, or for `*.pem` the suffix a matching name ends with. */
function nameKey(name: string): string | undefined {
  if (!GLOB_CHARS.test(name)) return `n:${name}`;
  const suffix = STAR_SUFFIX.exec(name);
  return suffix ? `s:${suffix[1] as string}` : undefined;
}

/** `src/mod/**\/*.ts`: the folder written literally before the first glob character (`src/mod`). */
function pathGlobKey(pattern: string): string | undefined {
  const first = pattern.search(PICOMATCH_SPECIAL);
  if (first <= 0) return undefined;
  const slash = pattern.lastIndexOf("/", first);
  return slash < 0 ? undefined : `p:${pattern.slice(0, slash)}`;
}

/** `git log *`: the words written literally before the first wildcard (`git log`). */
function commandGlobKey(pattern: string): string | undefined {
  const first = pattern.search(/[*?]/);
  if (first < 0) return `w:${pattern}`; // `[` and `{` are literal in a command: no wildcard at all
  const space = pattern.lastIndexOf(" ", first - 1);
  return space < 0 ? undefined : `w:${pattern.slice(0, space)}`;
}

/** `*.example.com`: the domain written (in ASCII) after the last wildcard (`.example.com`). */
function hostGlobKey(pattern: string): string | undefined {
  const suffix = pattern.slice(Math.max(pattern.lastIndexOf("*"), pattern.lastIndexOf("?")) + 1);
  return suffix.length > 1 && suffix.startsWith(".") && /^[\x20-\x7e]+$/.test(suffix)
    ? `d:${suffix.toLowerCase()}`
    : undefined;
}

/**
 * Every key a value has (see CompiledPattern.key): a path's own and each folder above it, and for
 * a workspace path each of its names and their suffixes from a dot; a command's words from its
 * start; a host and each of its domains.
 */
export function valueKeys(value: string, kind: SubjectKind): string[] {
  const keys: string[] = [];
  if (kind === "path") {
    keys.push(`p:${value}`);
    for (let i = value.indexOf("/"); i !== -1; i = value.indexOf("/", i + 1))
      keys.push(`p:${value.slice(0, i)}`);
    if (!path.isAbsolute(value)) {
      for (const name of value.split("/")) {
        keys.push(`n:${name}`);
        for (let i = name.indexOf("."); i !== -1; i = name.indexOf(".", i + 1))
          keys.push(`s:${name.slice(i)}`);
      }
    }
  } else if (kind === "command") {
    keys.push(`w:${value}`);
    for (let i = value.indexOf(" "); i !== -1; i = value.indexOf(" ", i + 1))
      keys.push(`w:${value.slice(0, i)}`);
  } else {
    const lower = value.toLowerCase();
    keys.push(`h:${lower}`);
    for (let i = lower.indexOf("."); i !== -1; i = lower.indexOf(".", i + 1))
      keys.push(`d:${lower.slice(i)}`);
  }
  return keys;
}
