import { modifiedTime } from "../capability/modified-time.ts";
import { SyncFileReader } from "../capability/sync-file-reader.ts";
import { LineMatcher } from "./line-matcher.ts";

export const GREP_OUTPUT_MODES = ["files_with_matches", "content", "count"] as const;
export type GrepOutputMode = (typeof GREP_OUTPUT_MODES)[number];

export interface GrepFilesInput {
  pattern: string;
  ignoreCase: boolean;
  mode: GrepOutputMode;
  /** Canonical paths to read, and the path each is shown as. */
  files: { absolute: string; path: string }[];
}

/** What matched in one batch of files, per output mode (merged and ordered by the grep tool). */
export type GrepBatch =
  | { mode: "files_with_matches"; files: { path: string; mtimeMs: number }[] }
  | { mode: "count"; counts: { path: string; count: number }[] }
  | { mode: "content"; matches: { path: string; lines: { line: number; text: string }[] }[] };

/**
 * Search a batch of files: read each (synchronously, into one reused buffer) and match the
 * pattern line by line. It runs on an offload worker, where a file of any size, or a regular
 * expression that backtracks for minutes, holds up no event loop, and where aborting the call
 * terminates it.
 */
export function grepFiles(input: GrepFilesInput): GrepBatch {
  const matcher = LineMatcher.compile(input.pattern, input.ignoreCase);
  const reader = new SyncFileReader();
  switch (input.mode) {
    case "files_with_matches": {
      const files: { path: string; mtimeMs: number }[] = [];
      for (const { absolute, path } of input.files) {
        const bytes = reader.read(absolute);
        if (bytes && matcher.matches(bytes)) files.push({ path, mtimeMs: modifiedTime(absolute) ?? 0 });
      }
      return { mode: input.mode, files };
    }
    case "count": {
      const counts: { path: string; count: number }[] = [];
      for (const { absolute, path } of input.files) {
        const bytes = reader.read(absolute);
        const count = bytes ? matcher.count(bytes) : 0;
        if (count > 0) counts.push({ path, count });
      }
      return { mode: input.mode, counts };
    }
    case "content": {
      const matches: { path: string; lines: { line: number; text: string }[] }[] = [];
      for (const { absolute, path } of input.files) {
        const bytes = reader.read(absolute);
        const lines = bytes ? matcher.lines(bytes) : [];
        if (lines.length > 0) matches.push({ path, lines });
      }
      return { mode: input.mode, matches };
    }
  }
}
