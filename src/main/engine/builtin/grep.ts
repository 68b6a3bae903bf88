import picomatch from "picomatch";
import { z } from "zod";
import { newestFirst } from "../capability/modified-time.ts";
import { offload } from "../offload/offload.ts";
import type { Truncation } from "../tools/contract.ts";
import { oneLinePath } from "../tools/one-line-path.ts";
import { OUTPUT_LIMITS, truncateListField } from "../tools/truncation.ts";
import type { Unreachable } from "../capability/workspace-walker.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { relativeGlob } from "./glob-pattern.ts";
import { HiddenPathError } from "../errors/hidden-path-error.ts";
import type { HiddenPath } from "../sandbox/hidden-path-set.ts";
import type { ToolRuntime } from "../tools/contract.ts";
import {
  GREP_OUTPUT_MODES,
  type GrepBatch,
  type GrepFile,
  type GrepFilesInput,
  type GrepOutputMode,
  type LinkedFile,
} from "./grep-files.ts";
import { LineMatcher, NUL_SHOWN } from "./line-matcher.ts";
import {
  joinNotes,
  leftOutNote,
  refuseDeniedPath,
  refuseUnreadableGlob,
  resolveSearchPath,
  RuleWithheld,
  unreachableNote,
} from "./search-path.ts";

const DESCRIPTION = `Search file contents with a JavaScript regular expression, line by line. To find files by name, use glob.

Escape special characters to match them literally ("foo\\("). Unicode escapes work (\\p{Lu}, \\u{1F600}); for case use ignore_case, not (?i). glob keeps only files matching it: without "/" it matches file names anywhere ("*.ts"), with "/" the path ("src/**/*.py"); a leading "!" excludes. .gitignored and binary files are skipped (a file given as path is searched as text even so), symlinked folders not followed. At most 200 entries: past that truncated: true and output_path holds them all; narrow the pattern, path or glob.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    pattern: z.string().min(1).describe('e.g. "function\\s+load\\w*".'),
    path: z
      .string()
      .min(1)
      .optional()
      .describe("File or folder to search, relative to the workspace root; or a cut result's output_path."),
    glob: z.string().min(1).optional(),
    ignore_case: z.boolean().optional(),
    output_mode: z
      .enum(GREP_OUTPUT_MODES)
      .optional()
      .describe("files_with_matches (default): paths; content: matching lines, numbered; count: per file."),
  });

export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepCount {
  path: string;
  count: number;
}

/** `note`: what the walk left out because Lathe hides it or a rule denies reading it (see leftOutNote). */
type GrepData = ({ files: string[] } | { matches: GrepMatch[] } | { counts: GrepCount[] }) & {
  note?: string;
  /** A named file held NUL bytes and was searched as text all the same (see binaryNote). */
  binary?: string;
};

const byPath = <T extends { path: string }>(a: T, b: T): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** Files handed to a worker at a time: enough to amortise a round trip, few enough to spread over the pool. */
const BATCH_FILES = 256;

/** The batches' findings as the tool's result, ordered as the description promises. */
function merge(mode: GrepOutputMode, batches: readonly GrepBatch[]): GrepData {
  if (mode === "files_with_matches") {
    const files = batches.flatMap((b) => (b.mode === "files_with_matches" ? b.files : []));
    return { files: files.sort(newestFirst).map((f) => f.path) };
  }
  if (mode === "count") {
    return { counts: batches.flatMap((b) => (b.mode === "count" ? b.counts : [])).sort(byPath) };
  }
  const perFile = batches.flatMap((b) => (b.mode === "content" ? b.matches : [])).sort(byPath);
  return { matches: perFile.flatMap((f) => f.lines.map(({ line, text }) => ({ path: f.path, line, text }))) };
}

/** What a search of a file holding NUL bytes says about it (see GrepFile.named). */
function binaryNote(path: string): string {
  return `${path} holds NUL bytes, as binary files do: it was searched as text because it was named (a search of its folder skips it); a NUL byte shows as ${NUL_SHOWN}.`;
}

/**
 * A file filter like ripgrep's --glob: a pattern without "/" matches the file name, one with "/"
 * the path relative to the searched folder; a leading "!" excludes what it matches.
 */
function globFilter(glob: string): (local: string) => boolean {
  const exclude = glob.startsWith("!");
  const body = exclude ? glob.slice(1) : glob;
  const matches = picomatch(body, { dot: true });
  const byName = !body.includes("/");
  return (local) => {
    const hit = matches(byName ? local.slice(local.lastIndexOf("/") + 1) : local);
    return exclude ? !hit : hit;
  };
}

/**
 * The files with several names the batches did not search (see SyncFileReader), judged here where
 * the hidden paths are known: a hard link to a hidden file is left out (or, named as the search
 * path, refused like the hidden file); the others are searched in a batch of their own, each only
 * while it is still the file judged.
 */
function judgeLinked(
  runtime: ToolRuntime,
  linked: readonly LinkedFile[],
  named: boolean,
): { cleared: GrepFile[]; hidden: { link: string; hidden: HiddenPath }[] } {
  const cleared: GrepFile[] = [];
  const hidden: { link: string; hidden: HiddenPath }[] = [];
  const set = runtime.fs.hidden;
  for (const file of linked) {
    const found = set.linkedHidden({ ...file.cleared, nlink: 2, isFile: () => true });
    if (found && named) throw new HiddenPathError(file.path, found, set.settingsFile);
    if (found) hidden.push({ link: file.path, hidden: found });
    else cleared.push(file);
  }
  return { cleared, hidden };
}

function truncateGrep(data: GrepData): Truncation<GrepData> | undefined {
  const max = OUTPUT_LIMITS.grepMatches;
  if ("files" in data) return truncateListField(data, "files", max);
  if ("matches" in data)
    return truncateListField(data, "matches", max, (m) => `${oneLinePath(m.path)}:${m.line}:${m.text}`);
  return truncateListField(data, "counts", max, (c) => `${oneLinePath(c.path)}:${c.count}`);
}

export const grepTool = defineBuiltin({
  id: "grep",
  description: DESCRIPTION,
  schema,
  plan: (args) => ({ accesses: [{ capability: "fs.read", path: args.path ?? "." }], unclear: [] }),
  // The session's folder too: where a cut result's whole output is (its output_path).
  requires: { fs: { read: ["{workspace}/**", "{session}/**"] } },
  readOnly: true,
  gated: false,
  kind: "search",
  async execute(args, runtime): Promise<GrepData> {
    const { fs, signal } = runtime;
    const ignoreCase = args.ignore_case ?? false;
    // Compiled here only to report a bad pattern; matching happens on offload workers, where a
    // pattern that backtracks for minutes stops with the call instead of freezing the host.
    LineMatcher.compile(args.pattern, ignoreCase);
    const mode = args.output_mode ?? "files_with_matches";
    const filter = args.glob === undefined ? undefined : relativeGlob(args.glob, "glob");
    const { target, isDir } = await resolveSearchPath(runtime, args.path);
    refuseDeniedPath(runtime, "grep", target);
    const batches: Promise<GrepBatch>[] = [];
    const search = (files: GrepFilesInput["files"]): void => {
      const batch = offload("grep.files", { pattern: args.pattern, ignoreCase, mode, files }, { signal });
      // Settled with the others below; a failure is reported from there, not as unhandled.
      batch.catch(() => undefined);
      batches.push(batch);
    };
    /** The batches, with the files of several names judged and the cleared ones searched. */
    const settle = async (): Promise<{
      batches: GrepBatch[];
      links: { link: string; hidden: HiddenPath }[];
    }> => {
      const done = await Promise.all(batches);
      const { cleared, hidden } = judgeLinked(
        runtime,
        done.flatMap((b) => b.linked),
        !isDir,
      );
      if (cleared.length === 0) return { batches: done, links: hidden };
      batches.length = 0;
      for (let i = 0; i < cleared.length; i += BATCH_FILES) search(cleared.slice(i, i + BATCH_FILES));
      return { batches: [...done, ...(await Promise.all(batches))], links: hidden };
    };
    if (!isDir) {
      // A file named explicitly is searched whatever the glob and ignore files say, as ripgrep
      // does, and as text even when it holds NUL bytes (ripgrep says a binary file matches): a
      // command's output kept in a sidecar may hold one, and "no match" would be untrue.
      search([{ absolute: target.absolute, path: target.display, named: true }]);
      const { batches } = await settle();
      const found = merge(mode, batches);
      return batches.some((b) => b.binary !== undefined)
        ? { ...found, binary: binaryNote(target.display) }
        : found;
    }
    // A path glob ("src/**/*.py") names folders; one naming a hidden folder is refused like its path.
    if (filter?.includes("/")) refuseUnreadableGlob(runtime, "grep", target, filter);
    const offset = target.display === "." ? 0 : target.display.length + 1;
    const keep = filter === undefined ? undefined : globFilter(filter);
    let pending: GrepFilesInput["files"] = [];
    const byRules = new RuleWithheld(runtime, target);
    const unreachable: { path: string; why: Unreachable }[] = [];
    const leftOut = await fs.walk(target, {
      onUnreachable: (relative, why, isDir) => {
        if (isDir || !keep || keep(offset === 0 ? relative : relative.slice(offset)))
          unreachable.push({ path: relative, why });
      },
      signal,
      searchIgnores: true,
      onFile(entry) {
        if (keep && !keep(offset === 0 ? entry.relative : entry.relative.slice(offset))) return;
        // A file a rule forbids reading (or asks about) is not searched: its lines, or that it matches, would tell.
        if (byRules.withholds(entry)) return;
        pending.push({ absolute: entry.absolute, path: entry.relative });
        if (pending.length >= BATCH_FILES) {
          search(pending);
          pending = [];
        }
      },
    });
    if (pending.length > 0) search(pending);
    const settled = await settle();
    const note = joinNotes(
      leftOutNote([...leftOut, ...settled.links.map((l) => l.hidden)], {
        links: settled.links.map((l) => l.link),
        byRules,
      }),
      unreachableNote(unreachable),
    );
    const found = merge(mode, settled.batches);
    return note === undefined ? found : { ...found, note };
  },
  truncate: truncateGrep,
});
