import picomatch from "picomatch";
import { symlinksOnPathSync } from "../capability/canonical-path.ts";
import type { ResolvedPath } from "../capability/fs-capability.ts";
import { HiddenPathError } from "../errors/hidden-path-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { homeRelative, type HiddenPath } from "../sandbox/hidden-path-set.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import { MAX_PATH_BYTES } from "../capability/path-limits.ts";
import type { Unreachable, WalkEntry } from "../capability/workspace-walker.ts";
import { plannedPath } from "./planned-path.ts";

interface SearchPath {
  target: ResolvedPath;
  isDir: boolean;
}

/**
 * The `path` argument of a search tool as its plan's read access resolved it (the workspace root
 * when omitted). A missing path or one that is neither a file nor a folder is a ToolCallError
 * that says what to do instead.
 */
export async function resolveSearchPath(
  runtime: ToolRuntime,
  input: string | undefined,
): Promise<SearchPath> {
  const target = plannedPath(runtime, 0, input ?? ".");
  const stats = await runtime.fs.stat(target);
  if (!stats) {
    throw new ToolCallError(
      `The path "${input}" does not exist. Give an existing file or folder relative to the workspace root, or leave out "path" to search the whole workspace.`,
    );
  }
  if (!stats.isDirectory() && !stats.isFile()) {
    throw new ToolCallError(`The path "${input}" is not a regular file or folder; it cannot be searched.`);
  }
  return { target, isDir: stats.isDirectory() };
}

/**
 * Refuse a search path a permission rule denies the tool reading, with the rule. The call's plan
 * has put the path through the rules for the tool and `fs.read` already; what is checked here is
 * what a walk leaves out besides: a path the `read` tool is denied (see ToolRuntime.readDenied).
 */
export function refuseDeniedPath(runtime: ToolRuntime, toolId: string, target: ResolvedPath): void {
  const denied = runtime.readDenied?.({ absolute: target.absolute, display: target.display });
  if (denied !== undefined) throw new ToolCallError(`${toolId} was denied: ${denied}.`);
}

/**
 * Refuse a search glob (checked by relativeGlob) whose literal leading folders, or whole text when
 * it has no wildcard, name a path Lathe hides from its tools, or one a permission rule denies the
 * tool reading: `.ssh/*` is refused as reading `.ssh` is (HiddenPathError), and `secrets/*` with
 * `secrets/**` denied as a search of `secrets` is, rather than searched and found empty.
 */
export function refuseUnreadableGlob(
  runtime: ToolRuntime,
  toolId: string,
  folder: ResolvedPath,
  glob: string,
): void {
  const scan = picomatch.scan(glob);
  if (scan.negated || glob.startsWith("!")) return;
  const literal = scan.isGlob ? scan.base : glob;
  if (literal === "" || literal.includes("\\")) return;
  const hidden = runtime.fs.hidden;
  const canonical = hidden.canonical(`${folder.absolute}/${literal}`);
  const named = folder.display === "." ? literal : `${folder.display}/${literal}`;
  const found = hidden.find(canonical);
  if (found) {
    throw new HiddenPathError(named, found, hidden.settingsFile, runtime.fs.display(found.path));
  }
  const display = runtime.fs.display(canonical);
  const denied =
    runtime.readDenied?.({ absolute: canonical, display }) ??
    (display === named ? undefined : runtime.readDenied?.({ absolute: canonical, display: named }));
  if (denied !== undefined) throw new ToolCallError(`${toolId} was denied: ${denied}.`);
}

/**
 * The files a search's walk leaves out because of the permission rules: those a rule denies
 * reading, and those a rule says to ask about (a walk cannot ask about each file it meets; the
 * model can search their folder by `path`, which asks). Counted, never named.
 */
export class RuleWithheld {
  denied = 0;
  asked = 0;
  /** The patterns of the ask rules that held files back. */
  readonly askPatterns = new Set<string>();
  private readonly runtime: ToolRuntime;
  /**
   * Whether ask rules hold files back: not when the searched folder is itself under one, as the
   * call then ran with a person's yes (or the allowlist's) for reading it, and what is in it.
   */
  private readonly asking: boolean;

  /** Whether any rule could hold a file back: when none could, a walk checks nothing per file. */
  private readonly active: boolean;

  constructor(runtime: ToolRuntime, searched: ResolvedPath) {
    this.runtime = runtime;
    this.asking =
      runtime.readAsks?.({ absolute: searched.absolute, display: searched.display }) === undefined;
    this.active = runtime.readDenied !== undefined || (this.asking && runtime.readAsks !== undefined);
  }

  /**
   * Whether a file the walk found is left out (and counted): judged by the path it was found
   * under and, for a symlinked file, by the file it leads to (whose content a search would show)
   * and every symlink between them. A plain file costs string matching only, and no copy of its
   * path; only a symlinked one has its links read from the disk.
   */
  withholds(entry: WalkEntry): boolean {
    if (!this.active) return false;
    const { root } = this.runtime.fs;
    const rootLength = root === "/" ? 0 : root.length;
    const plain =
      entry.absolute.length === rootLength + 1 + entry.relative.length &&
      entry.absolute.endsWith(entry.relative);
    let verdict: ReturnType<RuleWithheld["judge"]>;
    if (plain) verdict = this.judge({ absolute: entry.absolute, display: entry.relative });
    else {
      const found = `${root === "/" ? "" : root}/${entry.relative}`;
      verdict = this.worse(
        this.judge({ absolute: found, display: entry.relative }),
        this.judge({ absolute: entry.absolute, display: this.runtime.fs.display(entry.absolute) }),
      );
      // And every other symlink on its way (`a -> .env -> cfg/env.real` is `.env` too).
      for (const link of verdict?.denied === true ? [] : this.linksBetween(found)) {
        verdict = this.worse(verdict, this.judge({ absolute: link, display: this.runtime.fs.display(link) }));
        if (verdict?.denied === true) break;
      }
    }
    if (verdict === undefined) return false;
    if (verdict.denied) this.denied++;
    else {
      this.asked++;
      this.askPatterns.add(verdict.asks);
    }
    return true;
  }

  /** The symlinks a symlinked file found at `found` leads through after its own (see symlinksOnPath). */
  private linksBetween(found: string): string[] {
    try {
      return symlinksOnPathSync(found).filter((link) => link !== found);
    } catch {
      // A loop: the walk reports no such file (it leads nowhere to read).
      return [];
    }
  }

  private judge(file: {
    absolute: string;
    display: string;
  }): { denied: true } | { denied: false; asks: string } | undefined {
    if (this.runtime.readDenied?.(file) !== undefined) return { denied: true };
    const asks = this.asking ? this.runtime.readAsks?.(file) : undefined;
    return asks === undefined ? undefined : { denied: false, asks };
  }

  private worse<T extends { denied: boolean }>(a: T | undefined, b: T | undefined): T | undefined {
    return a?.denied === true ? a : b?.denied === true ? b : (a ?? b);
  }
}

/** Hard links a note names before it only counts the rest. */
const NAMED_LINKS = 5;

/** What a search's walk left out besides what it returns (see leftOutNote). */
interface LeftOutBesides {
  /** Paths (as shown) left out as hard links to hidden files. */
  links?: readonly string[];
  /** The files it left out because of the permission rules. */
  byRules?: RuleWithheld;
}

/** A count of files, as a note says it. */
const files = (n: number): string => `${n} ${n === 1 ? "file" : "files"}`;

/** What the rules held back, as parts of a note (see RuleWithheld). */
function ruleNotes(byRules: RuleWithheld | undefined): string[] {
  if (byRules === undefined) return [];
  const { denied, asked, askPatterns } = byRules;
  const quoted = [...askPatterns].map((p) => JSON.stringify(p)).join(", ");
  return [
    ...(denied === 0
      ? []
      : [
          `left out ${files(denied)} that your permission rules deny reading (not named; reading ${denied === 1 ? "it" : "them"} is refused)`,
        ]),
    ...(asked === 0
      ? []
      : [
          `left out ${files(asked)} that your permission rules ask about before reading (rule ${quoted}); search their folder as "path" to be asked`,
        ]),
  ];
}

/**
 * What a search left out because Lathe hides it from every tool (see FsCapability.walk), or
 * because of the permission rules, as a note for its result. Hidden paths: each hiding entry
 * once, with what hides it, and the `links` left out as hard links to hidden files. Files the
 * rules held back are only counted (see RuleWithheld): a denied file's name, like its content,
 * is for no tool to tell.
 * Undefined when nothing was left out.
 */
export function leftOutNote(
  leftOut: readonly HiddenPath[],
  { links = [], byRules }: LeftOutBesides = {},
): string | undefined {
  const byRuleParts = ruleNotes(byRules);
  if (leftOut.length === 0) return byRuleParts.length === 0 ? undefined : byRuleParts.join("; ");
  const byEntry = new Map(leftOut.map((h) => [h.entry, h.hiddenBy]));
  const listed = (by: HiddenPath["hiddenBy"]) =>
    [...byEntry].flatMap(([entry, hiddenBy]) => (hiddenBy === by ? [homeRelative(entry)] : []));
  const parts = [
    ...(listed("denyRead").length > 0 ? [`${listed("denyRead").join(", ")} (sandbox.denyRead)`] : []),
    ...(listed("lathe-home").length > 0 ? [`${listed("lathe-home").join(", ")} (Lathe's own data)`] : []),
  ];
  const n = byEntry.size;
  const linkNote =
    links.length === 0
      ? ""
      : `; and ${links.length === 1 ? "a file" : `${links.length} files`} in the workspace that ${links.length === 1 ? "is a hard link" : "are hard links"} to them (the same file under another name): ${links.slice(0, NAMED_LINKS).join(", ")}${links.length > NAMED_LINKS ? ` and ${links.length - NAMED_LINKS} more` : ""}`;
  const hiddenPart = `left out ${n} hidden ${n === 1 ? "path" : "paths"}, which no tool or command may read: ${parts.join("; ")}${linkNote}`;
  return [hiddenPart, ...byRuleParts].join("; ");
}

/** Paths a note shows before it only counts the rest. */
const NAMED_UNREACHABLE = 5;

/** A path as a note quotes it: in JSON quotes, cut to its start and end when long. */
function quoted(p: string): string {
  return JSON.stringify(p.length > 120 ? `${p.slice(0, 50)}…${p.slice(-50)}` : p);
}

/**
 * What a search left out because no tool can open it by its path (see WalkOptions.onUnreachable),
 * as a note for its result: the paths, each reason once, and what to do. Undefined when none.
 */
export function unreachableNote(left: ReadonlyArray<{ path: string; why: Unreachable }>): string | undefined {
  const parts: string[] = [];
  for (const why of ["not-utf8", "too-long"] as const) {
    const paths = left.filter((l) => l.why === why).map((l) => l.path);
    const n = paths.length;
    if (n === 0) continue;
    const named = `${paths.slice(0, NAMED_UNREACHABLE).map(quoted).join(", ")}${n > NAMED_UNREACHABLE ? ` and ${n - NAMED_UNREACHABLE} more` : ""}`;
    const them = n === 1 ? "it" : "them";
    parts.push(
      why === "not-utf8"
        ? `left out ${n === 1 ? "a file or folder whose name is" : `${n} files or folders whose names are`} not valid UTF-8, which no tool can open by name (\uFFFD stands for the bytes that are not): ${named}. To work on ${them}, rename ${them} with bash (a glob reaches any name: mv ./bad?.txt ./good.txt)`
        : `left out ${n === 1 ? "a file or folder whose path is" : `${n} files or folders whose paths are`} longer than the ${MAX_PATH_BYTES} bytes a path may have, which no tool can open: ${named}. To work on ${them}, move ${them} higher up with bash`,
    );
  }
  return parts.length === 0 ? undefined : parts.join("; ");
}

/** The notes a search has to give, as one (undefined when none). */
export function joinNotes(...notes: Array<string | undefined>): string | undefined {
  const present = notes.filter((n): n is string => n !== undefined);
  return present.length === 0 ? undefined : present.join("; ");
}
