import picomatch from "picomatch";
import { z } from "zod";
import { newest, newestFirst } from "../capability/modified-time.ts";
import { ModifiedTimes } from "../capability/modified-times.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import { OUTPUT_LIMITS, truncateListField } from "../tools/truncation.ts";
import type { Unreachable } from "../capability/workspace-walker.ts";
import { defineBuiltin } from "./define-builtin.ts";
import { pathMatcher, relativeGlob } from "./glob-pattern.ts";
import {
  joinNotes,
  leftOutNote,
  refuseDeniedPath,
  refuseUnreadableGlob,
  resolveSearchPath,
  RuleWithheld,
  unreachableNote,
} from "./search-path.ts";

const DESCRIPTION = `Find files by name with a glob pattern, newest first. To search inside files, use grep.

pattern is relative to path (default: the workspace root); "*" matches within one folder, "**" any number of folders; hidden files match too. To match * ? [ ] { } ( ) in a name literally, put a backslash before each ("a\\[1\\].txt"). No absolute path or ".." in pattern: choose the folder with path. Lists only files, not folders; .gitignored files are left out and symlinked folders not followed. At most 1000 paths: past that truncated: true and output_path holds them all; narrow the search or pass limit.`;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    pattern: z.string().min(1).describe('e.g. "**/*.ts", "src/**/*.test.js".'),
    path: z.string().min(1).optional().describe("Folder to search, relative to the workspace root."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(OUTPUT_LIMITS.globEntries)
      .optional()
      .describe("Return only the newest this many paths."),
  });

export interface GlobData {
  files: string[];
  /** With `limit`: how many more files matched than came back (left out when none). */
  omitted?: number;
  /** What the walk left out because Lathe hides it or a rule denies reading it (see leftOutNote). */
  note?: string;
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
    refuseDeniedPath(runtime, "glob", target);
    refuseUnreadableGlob(runtime, "glob", target, glob);
    const matches = pathMatcher(glob);
    const offset = target.display === "." ? 0 : target.display.length + 1;
    const wanted = folderFilter(glob);
    const found: string[] = [];
    const times = new ModifiedTimes();
    const unreachable: { path: string; why: Unreachable }[] = [];
    const byRules = new RuleWithheld(runtime, target);
    const leftOut = await fs.walk(target, {
      // Said only when it could have been a match (a file the pattern matches, a folder it enters).
      onUnreachable: (relative, why, isDir) => {
        const local = relative.slice(offset);
        if (isDir ? (wanted?.(local) ?? true) : matches(local)) unreachable.push({ path: relative, why });
      },
      signal,
      searchIgnores: true,
      enterDir: wanted && ((relative) => wanted(relative.slice(offset))),
      onFile(entry) {
        if (!matches(offset === 0 ? entry.relative : entry.relative.slice(offset))) return;
        // A file a rule forbids reading (or asks about) is not listed: its name would tell.
        if (byRules.withholds(entry)) return;
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
    const note = joinNotes(leftOutNote(leftOut, { byRules }), unreachableNote(unreachable));
    const noted = note === undefined ? {} : { note };
    if (limit === undefined || dated.length <= limit) {
      return { files: dated.sort(newestFirst).map((f) => f.path), ...noted };
    }
    return { files: newest(dated, limit).map((f) => f.path), omitted: dated.length - limit, ...noted };
  },
  truncate: (data) => truncateListField(data, "files", OUTPUT_LIMITS.globEntries),
});
