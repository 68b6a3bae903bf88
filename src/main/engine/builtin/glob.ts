import picomatch from "picomatch";
import { z } from "zod";
import { newest, newestFirst } from "../capability/modified-time.ts";
import { ModifiedTimes } from "../capability/modified-times.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { OUTPUT_LIMITS, truncateListField } from "../tools/truncation.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { pathMatcher, relativeGlob } from "./glob-pattern.ts";
import { resolveSearchPath } from "./search-path.ts";

const DESCRIPTION = `Find files by name with a glob pattern, newest first.

Use it to discover which files exist before you read or search them: "**/*.ts" finds every TypeScript file, "src/**/test_*.py" the Python tests under src, "*.md" the Markdown files at the top of the searched folder. To search inside files, use grep instead.

pattern is a glob relative to path (by default the workspace root): "*" and "?" match within one folder name, "**" matches any number of folders, "{a,b}" either alternative, "[abc]" one character. Hidden files match like any other. Do not put an absolute path or ".." in pattern; choose the folder to search with path instead.

Returns {files}: paths relative to the workspace root, most recently modified first. Files excluded by .gitignore (at any level) or .git/info/exclude are left out, .git is never listed, symlinked folders are not followed, and a symlinked file is listed only when it points inside the workspace. Only files are listed, not folders.

At most 1000 paths come back; past that the result has truncated: true and output_path names a file holding every path, one per line, which you can read. Narrow the pattern or the path to see fewer, or give limit to get only the newest paths (then omitted says how many more matched).`;

const schema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('Glob matched against file paths relative to "path", e.g. "**/*.ts" or "src/**/*.test.js".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe("The folder to search in, relative to the workspace root. Defaults to the root."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(OUTPUT_LIMITS.globEntries)
    .optional()
    .describe(`Return only the newest this many paths (1 to ${OUTPUT_LIMITS.globEntries}). Defaults to all.`),
});

export interface GlobData {
  files: string[];
  /** With `limit`: how many more files matched than came back (left out when none). */
  omitted?: number;
}

/**
 * Which folders (relative to the searched folder) can hold a match: those on the way to or
 * below the pattern's literal leading folders, and for a pattern without "**", braces or
 * groups, those shallower than its number of segments.
 */
function folderFilter(pattern: string): ((local: string) => boolean) | undefined {
  const scan = picomatch.scan(pattern);
  if (scan.negated || pattern.startsWith("!")) return undefined;
  const literal = scan.isGlob ? scan.base : pattern.split("/").slice(0, -1).join("/");
  const prefix = literal.includes("\\") ? "" : literal;
  const depthLimit = /\*\*|[{}()]/.test(pattern) ? Infinity : pattern.split("/").length - 1;
  if (prefix === "" && depthLimit === Infinity) return undefined;
  return (local) => {
    if (local.split("/").length > depthLimit) return false;
    if (prefix === "") return true;
    return local === prefix || prefix.startsWith(`${local}/`) || local.startsWith(`${prefix}/`);
  };
}

export const globTool = defineBuiltin({
  id: "glob",
  description: DESCRIPTION,
  schema,
  plan: (args) => ({ accesses: [{ capability: "fs.read", path: args.path ?? "." }], unclear: [] }),
  requires: { fs: { read: ["{workspace}/**"] } },
  readOnly: true,
  gated: false,
  kind: "search",
  async execute({ pattern, path, limit }, runtime): Promise<GlobData> {
    const { fs, signal } = runtime;
    const glob = relativeGlob(pattern, "pattern");
    const { target, isDir } = await resolveSearchPath(runtime, path);
    if (!isDir) {
      throw new ToolCallError(
        `"${path}" is a file, not a folder. Give its folder as "path" and a pattern that matches its name.`,
      );
    }
    const matches = pathMatcher(glob);
    const offset = target.display === "." ? 0 : target.display.length + 1;
    const wanted = folderFilter(glob);
    const found: string[] = [];
    const times = new ModifiedTimes();
    await fs.walk(target, {
      signal,
      enterDir: wanted && ((relative) => wanted(relative.slice(offset))),
      onFile(entry) {
        if (!matches(offset === 0 ? entry.relative : entry.relative.slice(offset))) return;
        found.push(entry.relative);
        times.add(entry.absolute);
      },
    });
    const mtimes = await times.all(signal);
    const dated: { path: string; mtimeMs: number }[] = [];
    for (let i = 0; i < found.length; i++) {
      const mtimeMs = mtimes[i] as number;
      // A file that vanished since the walk saw it is left out.
      if (!Number.isNaN(mtimeMs)) dated.push({ path: found[i] as string, mtimeMs });
    }
    if (limit === undefined || dated.length <= limit) {
      return { files: dated.sort(newestFirst).map((f) => f.path) };
    }
    return { files: newest(dated, limit).map((f) => f.path), omitted: dated.length - limit };
  },
  truncate: (data) => truncateListField(data, "files", OUTPUT_LIMITS.globEntries),
});
