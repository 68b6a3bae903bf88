import { lstatSync, readFileSync, realpathSync, statSync, type Dirent } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import ignore, { type Ignore } from "ignore";
import { isWithin } from "./canonical-path.ts";
import { folderListings } from "./folder-listings.ts";
import { MAX_PATH_BYTES } from "./path-limits.ts";

/** A file the walk found. */
export interface WalkEntry {
  /** Canonical absolute path to read: the target when the entry is a symlinked file. */
  readonly absolute: string;
  /** POSIX path relative to the root, as found (a symlink's own path, not its target's). */
  readonly relative: string;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Called synchronously for every file, in no particular order; may do synchronous work. */
  onFile(entry: WalkEntry): void;
  /** Return false to skip a folder (POSIX path relative to the root) and everything below it. */
  enterDir?(relative: string): boolean;
  /**
   * Also honour ripgrep's `.ignore` and `.rgignore` (a search: glob, grep), not only `.gitignore`.
   * The checkpoints' index leaves them out: what is hidden from search is still worth undoing.
   */
  searchIgnores?: boolean;
  /**
   * Called for a file or folder no tool can open by its path, left out of the walk (POSIX path
   * relative to the root, as decoded): `not-utf8`, its name is not valid UTF-8 (Linux allows any
   * bytes; as a string it holds U+FFFD where those bytes are, and opening that string opens
   * nothing); `too-long`, its path is longer than the system allows (PATH_MAX).
   */
  onUnreachable?(relative: string, why: Unreachable, isDir: boolean): void;
  /**
   * Called with each folder (POSIX path relative to the root, "" for the root) that holds a
   * `.git` entry, of any type: the walk still never enters it. A folder the ignore files leave
   * out, and a link to a folder, are not walked, but are looked at for a `.git` of their own.
   */
  onGitEntry?(relativeFolder: string): void;
  /** Called with each folder the ignore files leave out (POSIX path relative to the root), which is not walked. */
  onIgnoredFolder?(relativeFolder: string): void;
}

/** Why the walk left out a file or folder no tool can open by its path (see WalkOptions.onUnreachable). */
export type Unreachable = "not-utf8" | "too-long";

/** Whether a path is longer than a path may be: listing or opening it fails (ENAMETOOLONG). */
function isTooLong(absolute: string): boolean {
  return absolute.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(absolute) > MAX_PATH_BYTES;
}

/** Whether an entry listed as `name` cannot be reached by that name: its bytes were not UTF-8. */
function isUnnamable(folder: string, name: string): boolean {
  if (!name.includes("\uFFFD")) return false;
  try {
    lstatSync(`${folder}/${name}`);
    return false; // a valid name that holds U+FFFD itself
  } catch {
    return true;
  }
}

/**
 * What a walk leaves out although the scope covers it, and reports: what Lathe hides from every
 * tool (HiddenPathSet). `H` is what a hidden path is reported as.
 */
interface WalkHidden<H> {
  /** Whether anything at or below a canonical folder is hidden; when not, the walk checks nothing. */
  hidesBelow(folder: string): boolean;
  /** What hides a canonical path, if anything. */
  find(canonical: string): H | undefined;
  /** Whether a hidden folder holds a readable one (then it is entered, and what is in it judged one by one). */
  holdsReadable(folder: string): boolean;
  /**
   * Whether a canonical path is one of the hiding entries itself (a quick test): below a folder
   * that is in no entry, only such a path can be hidden.
   */
  isEntry(canonical: string): boolean;
  /** Whether a canonical path is an entry or lies in one. */
  covers(canonical: string): boolean;
}

/** What the walk may see: the canonical root it never leaves, and the tool's read scope. */
interface WalkScope<H> {
  readonly root: string;
  mayRead(canonical: string): boolean;
  /** Whether `mayRead` holds for everything below a canonical folder (then files are not checked one by one). */
  mayReadAllBelow?(folder: string): boolean;
  hidden?: WalkHidden<H>;
}

/** The compiled rules of one ignore file. */
interface RuleSet {
  /** The file's text, from which a variant re-including a folder is made (see `reincluding`). */
  readonly text: string;
  readonly rules: Ignore;
  /**
   * Whether every rule is a bare name pattern (no "/" but a trailing one), so that an entry's
   * name alone decides: tested by name, one verdict serves every folder holding that name.
   */
  readonly byName: boolean;
  /** For a set tested by name: its verdicts by name (folders with a trailing "/"), across walks. */
  readonly verdicts: Map<string, RuleVerdict>;
}

type RuleVerdict = { ignored: boolean; unignored: boolean };

/** A rule set in force during a walk, and where the folder holding its file starts. */
interface Matcher extends RuleSet {
  /** Length of the folder's root-relative path plus its "/" (0 for the root). */
  readonly offset: number;
}

interface Frame {
  readonly absolute: string;
  readonly relative: string;
  readonly matchers: readonly Matcher[];
  /** The folder is in a hiding entry (entered for a readable folder inside): every entry is judged. */
  readonly inHidden?: boolean;
}

/** What the rule sets in force say about one path: the deepest with an opinion decides. */
type Verdict = "ignored" | "reincluded" | undefined;

/** How long the walk runs between turns of the event loop, so aborts and timers get through. */
const SLICE_MS = 8;
/** Entries handled between two looks at the clock inside one big folder. */
const CLOCK_EVERY = 16;
const MAX_CACHED_RULE_SETS = 256;
/** Names whose verdict one rule set remembers; past that it starts over. */
const MAX_CACHED_NAMES = 16_384;

/** Compiled rule sets by the text of their ignore file: identical files compile once, across calls. */
const ruleCache = new Map<string, RuleSet | null>();

/** Whether a rule line (not blank, not a comment) can depend on more than the entry's name. */
function isPathRule(line: string): boolean {
  const body = line.replace(/^\\?!/, "").trimEnd().replace(/\/$/, "");
  return body.includes("/");
}

function compileRules(text: string): RuleSet | null {
  const cached = ruleCache.get(text);
  if (cached !== undefined) {
    ruleCache.delete(text);
    ruleCache.set(text, cached);
    return cached;
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "" && !line.startsWith("#"));
  // Git matches case-sensitively on Linux (core.ignoreCase false); so do we.
  const rules =
    lines.length === 0
      ? null
      : {
          text,
          rules: ignore({ ignoreCase: false }).add(text),
          byName: !lines.some(isPathRule),
          verdicts: new Map<string, RuleVerdict>(),
        };
  ruleCache.set(text, rules);
  if (ruleCache.size > MAX_CACHED_RULE_SETS) ruleCache.delete(ruleCache.keys().next().value as string);
  return rules;
}

/** A folder path as a gitignore pattern that matches it literally. */
function literalPattern(local: string): string {
  return local.replace(/[\\*?[\]]/g, "\\$&").replace(/ +$/, (spaces) => "\\ ".repeat(spaces.length));
}

/**
 * The rule set of `matcher` plus a last rule re-including the folder `local` (relative to the
 * matcher's folder) and nothing else. Git matches each path against each ignore file directly;
 * the `ignore` package also calls a path ignored when its file ignores a parent folder. Once a
 * deeper ignore file has re-included that folder, the variant answers for the paths below it
 * with only the rules that match them directly, as git does.
 */
function reincluding(matcher: Matcher, local: string): Matcher {
  const set = compileRules(`${matcher.text}\n!/${literalPattern(local)}/\n`) as RuleSet;
  return { ...set, byName: false, offset: matcher.offset };
}

function isSkippable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EPERM" || code === "ELOOP";
}

/** The rules of a regular ignore file (a symlinked one is not read, as git does not), if any. */
function loadRules(file: string): RuleSet | null {
  try {
    if (!lstatSync(file).isFile()) return null;
    return compileRules(readFileSync(file, "utf8"));
  } catch (err) {
    if (isSkippable(err)) return null;
    throw err;
  }
}

function withRules(matchers: readonly Matcher[], set: RuleSet | null, relative: string): readonly Matcher[] {
  return set ? [...matchers, { ...set, offset: relative === "" ? 0 : relative.length + 1 }] : matchers;
}

/** What one rule set says about a root-relative path; folders are tested with a trailing "/". */
function testOne(m: Matcher, relative: string, name: string, isDir: boolean): RuleVerdict {
  if (m.byName) {
    const key = isDir ? `${name}/` : name;
    let verdict = m.verdicts.get(key);
    if (verdict === undefined) {
      verdict = m.rules.test(key);
      if (m.verdicts.size >= MAX_CACHED_NAMES) m.verdicts.clear();
      m.verdicts.set(key, verdict);
    }
    return verdict;
  }
  const local = m.offset === 0 ? relative : relative.slice(m.offset);
  return m.rules.test(isDir ? `${local}/` : local);
}

/**
 * Whether a root-relative path is ignored: the deepest ignore file with an opinion decides (a
 * nested `!pattern` re-includes what a parent excluded).
 */
function verdictOf(matchers: readonly Matcher[], relative: string, name: string, isDir: boolean): Verdict {
  for (let i = matchers.length - 1; i >= 0; i--) {
    const verdict = testOne(matchers[i] as Matcher, relative, name, isDir);
    if (verdict.ignored) return "ignored";
    if (verdict.unignored) return "reincluded";
  }
  return undefined;
}

/**
 * The rule sets to judge the entries of a folder the walk enters although some rule set would
 * ignore it (a deeper file re-included it, or the caller named it): those rule sets are replaced
 * by variants that re-include it, so they judge what lies below by direct matches only.
 */
function entering(matchers: readonly Matcher[], relative: string, name: string): readonly Matcher[] {
  let fixed: Matcher[] | undefined;
  for (const [i, m] of matchers.entries()) {
    // A rule set tested by name never sees the folder's path, so it cannot hold the folder against its entries.
    if (m.byName || !testOne(m, relative, name, true).ignored) continue;
    fixed ??= [...matchers];
    fixed[i] = reincluding(m, relative.slice(m.offset));
  }
  return fixed ?? matchers;
}

/**
 * The ignore files a search honours in a folder, weakest first: `.gitignore`, then `.ignore` and
 * `.rgignore` (ripgrep's and fd's own, for what a person hides from search but not from git),
 * whose rules win over it, as ripgrep reads them. Other walks honour `.gitignore` alone.
 */
const SEARCH_IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;
const GIT_IGNORE_FILES = [".gitignore"] as const;

/** `matchers` with the rules of the ignore files `present` in the folder at `relative`, weakest first. */
function withIgnoreFiles(
  names: readonly string[],
  matchers: readonly Matcher[],
  folder: string,
  relative: string,
  present: (name: string) => boolean,
): readonly Matcher[] {
  let out = matchers;
  for (const name of names) {
    if (present(name)) out = withRules(out, loadRules(`${folder}/${name}`), relative);
  }
  return out;
}

/** The rules in force at the start folder: `.git/info/exclude`, then every ancestor's ignore files. */
function ancestorMatchers(root: string, startRelative: string, names: readonly string[]): readonly Matcher[] {
  let matchers: readonly Matcher[] = [];
  const gitDir = `${root}/.git`;
  try {
    if (lstatSync(gitDir).isDirectory())
      matchers = withRules(matchers, loadRules(`${gitDir}/info/exclude`), "");
  } catch (err) {
    if (!isSkippable(err)) throw err;
  }
  if (startRelative === "") return matchers;
  let relative = "";
  for (const part of startRelative.split("/")) {
    // loadRules answers null for a file that is not there.
    matchers = withIgnoreFiles(
      names,
      matchers,
      relative === "" ? root : `${root}/${relative}`,
      relative,
      () => true,
    );
    relative = relative === "" ? part : `${relative}/${part}`;
    // A folder named explicitly is walked even when an ignore file excludes it (as ripgrep
    // does); the rules of every ignore file still apply to what lies inside it.
    matchers = entering(matchers, relative, part);
  }
  return matchers;
}

/**
 * The folder a walk starts in cannot be listed (the message says which and why, for a model: the
 * tools turn it into a call error). A plain error, so that the process spawner, which walks the
 * workspace too (planted-repos.ts), needs none of the tools' error types.
 */
export class UnlistableFolder extends Error {}

function listDir(frame: Frame, isStart: boolean): readonly Dirent[] | undefined {
  try {
    return folderListings.list(frame.absolute);
  } catch (err) {
    // A folder that vanished or may not be listed is skipped, as git and ripgrep do; only the
    // folder the caller asked for is worth an error.
    if (!isStart && isSkippable(err)) return undefined;
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    throw new UnlistableFolder(
      `Cannot list the folder ${frame.relative || "."} (${code}). Choose another path.`,
    );
  }
}

/** The canonical target of a symlink when it is a regular file inside the root that the scope lets us read. */
function symlinkedFile(absolute: string, scope: WalkScope<unknown>): string | undefined {
  let target: string;
  try {
    target = realpathSync.native(absolute);
    if (!statSync(target).isFile()) return undefined;
  } catch (err) {
    if (isSkippable(err)) return undefined; // dangling or looping links lead nowhere to read
    throw err;
  }
  return isWithin(scope.root, target) && scope.mayRead(target) ? target : undefined;
}

/**
 * Walk the files below `start` (a canonical folder inside the root), synchronously in slices
 * that yield to the event loop, calling `onFile` for each. Honours `.gitignore` files (and
 * with `searchIgnores`, `.ignore` and `.rgignore`) at every level (patterns relative to the folder holding them) and `<root>/.git/info/exclude`; always
 * skips `.git`; never follows a symlinked folder; reports a symlinked file only when its
 * canonical target lies inside the root and in the read scope. Leaves out what `scope.hidden`
 * hides, and returns it (each hidden folder once, not what is in it). Throws the abort reason
 * once the signal fires.
 */
export async function walkWorkspace<H = never>(
  start: string,
  scope: WalkScope<H>,
  options: WalkOptions,
): Promise<H[]> {
  const { root } = scope;
  if (!isWithin(root, start)) {
    throw new RangeError(`the walk's start ${start} is outside its root ${root}`);
  }
  const { signal, onFile, enterDir, onGitEntry } = options;
  const names: readonly string[] = options.searchIgnores === true ? SEARCH_IGNORE_FILES : GIT_IGNORE_FILES;
  signal?.throwIfAborted();
  const startRelative = start === root ? "" : start.slice(root.length + 1);
  const readsAll = scope.mayReadAllBelow?.(start) ?? false;
  // Checked only when something below the start is hidden (rarely: the home folder opened as the
  // workspace), and then by a quick test per entry outside the hidden folders; a symlinked
  // file's target is always checked.
  const hidden = scope.hidden?.hidesBelow(start) === true ? scope.hidden : undefined;
  const leftOut: H[] = [];
  const stack: Frame[] = [
    {
      absolute: start,
      relative: startRelative,
      matchers: ancestorMatchers(root, startRelative, names),
      inHidden: hidden?.covers(start) === true,
    },
  ];
  let sliceStarted = performance.now();
  let isStart = true;

  while (stack.length > 0) {
    if (performance.now() - sliceStarted > SLICE_MS) {
      await nextTurn();
      signal?.throwIfAborted();
      sliceStarted = performance.now();
    }
    const frame = stack.pop() as Frame;
    const entries = listDir(frame, isStart);
    isStart = false;
    if (!entries) continue;

    let present: Set<string> | undefined;
    for (const entry of entries) {
      if (names.includes(entry.name) && entry.isFile()) (present ??= new Set()).add(entry.name);
    }
    const matchers =
      present === undefined
        ? frame.matchers
        : withIgnoreFiles(names, frame.matchers, frame.absolute, frame.relative, (name) => present.has(name));
    const check = matchers.length > 0;
    const prefix = frame.relative === "" ? "" : `${frame.relative}/`;

    for (let i = 0; i < entries.length; i++) {
      if (i % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() - sliceStarted > SLICE_MS) {
        await nextTurn();
        signal?.throwIfAborted();
        sliceStarted = performance.now();
      }
      const entry = entries[i] as Dirent;
      const name = entry.name;
      if (name === ".git") {
        onGitEntry?.(frame.relative);
        continue;
      }
      const relative = prefix + name;
      const unreachable = isUnnamable(frame.absolute, name)
        ? "not-utf8"
        : isTooLong(`${frame.absolute}/${name}`)
          ? "too-long"
          : undefined;
      if (unreachable !== undefined) {
        options.onUnreachable?.(relative, unreachable, entry.isDirectory());
        continue;
      }
      if (entry.isDirectory()) {
        let inside = matchers;
        if (check) {
          const verdict = verdictOf(matchers, relative, name, true);
          if (verdict === "ignored") {
            if (onGitEntry && lstatSync(`${frame.absolute}/${name}/.git`, { throwIfNoEntry: false }))
              onGitEntry(relative);
            options.onIgnoredFolder?.(relative);
            continue;
          }
          if (verdict === "reincluded") inside = entering(matchers, relative, name);
        }
        if (enterDir && !enterDir(relative)) continue;
        const absolute = `${frame.absolute}/${name}`;
        const judged = hidden !== undefined && (frame.inHidden === true || hidden.isEntry(absolute));
        const hit = judged ? hidden.find(absolute) : undefined;
        if (hit !== undefined && !hidden?.holdsReadable(absolute)) {
          leftOut.push(hit);
          continue;
        }
        stack.push({ absolute, relative, matchers: inside, ...(judged ? { inHidden: true } : {}) });
      } else if (entry.isFile()) {
        if (check && verdictOf(matchers, relative, name, false) === "ignored") continue;
        const absolute = `${frame.absolute}/${name}`;
        const judged = hidden !== undefined && (frame.inHidden === true || hidden.isEntry(absolute));
        const hit = judged ? hidden.find(absolute) : undefined;
        if (hit !== undefined) leftOut.push(hit);
        else if (readsAll || scope.mayRead(absolute)) onFile({ absolute, relative });
      } else if (entry.isSymbolicLink()) {
        if (check && verdictOf(matchers, relative, name, false) === "ignored") continue;
        // A linked folder is never entered, but git works in it as in the folder it leads to.
        if (onGitEntry && statSync(`${frame.absolute}/${name}`, { throwIfNoEntry: false })?.isDirectory()) {
          if (lstatSync(`${frame.absolute}/${name}/.git`, { throwIfNoEntry: false })) onGitEntry(relative);
          continue;
        }
        const target = symlinkedFile(`${frame.absolute}/${name}`, scope);
        if (target === undefined) continue;
        const hit = scope.hidden?.find(target);
        if (hit !== undefined) leftOut.push(hit);
        else onFile({ absolute: target, relative });
      }
      // FIFOs, sockets and devices are never files to list or search.
    }
  }
  return leftOut;
}
