import picomatch from "picomatch";
import { z } from "zod";
import { newestFirst } from "../capability/modified-time.ts";
import { offload } from "../offload/offload.ts";
import type { Truncation } from "../tools/contract.ts";
import { OUTPUT_LIMITS, truncateListField } from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { relativeGlob } from "./glob-pattern.ts";
import { GREP_OUTPUT_MODES, type GrepBatch, type GrepFilesInput, type GrepOutputMode } from "./grep-files.ts";
import { LineMatcher } from "./line-matcher.ts";
import { resolveSearchPath } from "./search-path.ts";

const DESCRIPTION = `Search the contents of files with a regular expression.

Use it to find where something is defined or used: a function name, an error message, an import. To find files by name, use glob instead.

pattern is a JavaScript regular expression (the syntax of new RegExp), matched line by line: "^" and "$" match at line starts and ends, and a match is reported on the line where it starts. Escape special characters to match them literally, e.g. "foo\\(" or "\\.env". ignore_case: true makes the search case-insensitive.

path is a file or folder relative to the workspace root (by default the whole root). glob keeps only files whose path matches it, like ripgrep's --glob: a pattern without "/" matches the file name anywhere ("*.ts", "*.{js,jsx}"), one with "/" matches the path relative to path ("src/**/*.py"); a leading "!" excludes instead ("!*.min.js").

output_mode chooses the result:
- "files_with_matches" (default): {files}, the paths of the files that match, most recently modified first.
- "content": {matches: [{path, line, text}]}, every matching line with its 1-based line number and its text (without the line break; a very long line is cut around the match and marked).
- "count": {counts: [{path, count}]}, the number of matching lines in each file that matches.
Paths are relative to the workspace root; content and count are ordered by path.

Files excluded by .gitignore (at any level) or .git/info/exclude are skipped, as are .git and binary files (a NUL byte in the first 64 KB; in a longer file, a later NUL byte ends the search), as ripgrep skips them. Unlike ripgrep, glob only narrows the search (it never brings back an ignored file), and a symlinked file is searched when it points inside the workspace; symlinked folders are not followed. A line ending in \\r\\n ends before the \\r, so "$" matches there.

At most 200 entries come back (files, matching lines or counts); past that the result has truncated: true and output_path names a file holding every entry (one per line: path, path:line:text or path:count) that you can read. Narrow the pattern, path or glob to see fewer.`;

const schema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('JavaScript regular expression to search for, e.g. "function\\s+load\\w*".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe("File or folder to search, relative to the workspace root. Defaults to the root."),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" (file name) or "src/**/*.py" (path).'),
  ignore_case: z.boolean().optional().describe("Match letters regardless of case. Defaults to false."),
  output_mode: z
    .enum(GREP_OUTPUT_MODES)
    .optional()
    .describe(
      '"files_with_matches" (default), "content" (matching lines) or "count" (matching lines per file).',
    ),
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

export type GrepData = { files: string[] } | { matches: GrepMatch[] } | { counts: GrepCount[] };

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

function truncateGrep(data: GrepData): Truncation<GrepData> | undefined {
  const max = OUTPUT_LIMITS.grepMatches;
  if ("files" in data) return truncateListField(data, "files", max);
  if ("matches" in data)
    return truncateListField(data, "matches", max, (m) => `${m.path}:${m.line}:${m.text}`);
  return truncateListField(data, "counts", max, (c) => `${c.path}:${c.count}`);
}

export const grepTool = defineBuiltin({
  id: "grep",
  description: DESCRIPTION,
  schema,
  plan: (args) => ({ accesses: [{ capability: "fs.read", path: args.path ?? "." }], unclear: [] }),
  requires: { fs: { read: ["{workspace}/**"] } },
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
    const batches: Promise<GrepBatch>[] = [];
    const search = (files: GrepFilesInput["files"]): void => {
      const batch = offload("grep.files", { pattern: args.pattern, ignoreCase, mode, files }, { signal });
      // Settled with the others below; a failure is reported from there, not as unhandled.
      batch.catch(() => undefined);
      batches.push(batch);
    };
    if (!isDir) {
      // A file named explicitly is searched whatever the glob and ignore files say, as ripgrep does.
      search([{ absolute: target.absolute, path: target.display }]);
      return merge(mode, await Promise.all(batches));
    }
    const offset = target.display === "." ? 0 : target.display.length + 1;
    const keep = filter === undefined ? undefined : globFilter(filter);
    let pending: GrepFilesInput["files"] = [];
    await fs.walk(target, {
      signal,
      onFile(entry) {
        if (keep && !keep(offset === 0 ? entry.relative : entry.relative.slice(offset))) return;
        pending.push({ absolute: entry.absolute, path: entry.relative });
        if (pending.length >= BATCH_FILES) {
          search(pending);
          pending = [];
        }
      },
    });
    if (pending.length > 0) search(pending);
    return merge(mode, await Promise.all(batches));
  },
  truncate: truncateGrep,
});
