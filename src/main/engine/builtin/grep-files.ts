import { modifiedTime } from "../capability/modified-time.ts";
import { SyncFileReader } from "../capability/sync-file-reader.ts";
import type { FileIdentity } from "../sandbox/hidden-inode-index.ts";
import { LineMatcher } from "./line-matcher.ts";

export const GREP_OUTPUT_MODES = ["files_with_matches", "content", "count"] as const;
export type GrepOutputMode = (typeof GREP_OUTPUT_MODES)[number];

export interface GrepFilesInput {
  pattern: string;
  ignoreCase: boolean;
  mode: GrepOutputMode;
  /**
   * Canonical paths to read, and the path each is shown as; `cleared`: the identity of a file
   * with several names that the grep tool found is not a hidden file (read only while it is that file).
   */
  files: GrepFile[];
}

export interface GrepFile {
  absolute: string;
  path: string;
  cleared?: FileIdentity;
  /** The path the search named (not found in a folder): searched as text even if binary, as rg does. */
  named?: boolean;
}

/** A file with several names that was not searched: the grep tool judges it (see SyncFileReader). */
export type LinkedFile = GrepFile & { cleared: FileIdentity };

/**
 * What matched in one batch of files, per output mode (merged and ordered by the grep tool), and
 * the files with several names left for the grep tool to judge.
 */
export type GrepBatch = {
  linked: LinkedFile[];
  /** The named files that hold NUL bytes (binary ones a folder search skips), searched as text. */
  binary?: string[];
} & (
  | { mode: "files_with_matches"; files: { path: string; mtimeMs: number }[] }
  | { mode: "count"; counts: { path: string; count: number }[] }
  | { mode: "content"; matches: { path: string; lines: { line: number; text: string }[] }[] }
);

/**
 * Search a batch of files: read each (synchronously, into one reused buffer) and match the
 * pattern line by line. It runs on an offload worker, where a file of any size, or a regular
 * expression that backtracks for minutes, holds up no event loop, and where aborting the call
 * terminates it.
 */
export function grepFiles(input: GrepFilesInput): GrepBatch {
  const matcher = LineMatcher.compile(input.pattern, input.ignoreCase);
  const linked: LinkedFile[] = [];
  let current: GrepFile | undefined;
  const reader = new SyncFileReader((absolute, id) => {
    if (current)
      linked.push({ absolute, path: current.path, cleared: id, ...(current.named ? { named: true } : {}) });
  });
  const binary: string[] = [];
  const read = (file: GrepFile): Buffer | undefined => {
    current = file;
    const bytes = reader.read(file.absolute, file.cleared);
    if (file.named && bytes && bytes.indexOf(0) !== -1) binary.push(file.path);
    return bytes;
  };
  const found = (): { linked: LinkedFile[]; binary?: string[] } =>
    binary.length > 0 ? { linked, binary } : { linked };
  switch (input.mode) {
    case "files_with_matches": {
      const files: { path: string; mtimeMs: number }[] = [];
      for (const file of input.files) {
        const bytes = read(file);
        if (bytes && matcher.matches(bytes, file.named))
          files.push({ path: file.path, mtimeMs: modifiedTime(file.absolute) ?? 0 });
      }
      return { mode: input.mode, files, ...found() };
    }
    case "count": {
      const counts: { path: string; count: number }[] = [];
      for (const file of input.files) {
        const bytes = read(file);
        const count = bytes ? matcher.count(bytes, file.named) : 0;
        if (count > 0) counts.push({ path: file.path, count });
      }
      return { mode: input.mode, counts, ...found() };
    }
    case "content": {
      const matches: { path: string; lines: { line: number; text: string }[] }[] = [];
      for (const file of input.files) {
        const bytes = read(file);
        const lines = bytes ? matcher.lines(bytes, file.named) : [];
        if (lines.length > 0) matches.push({ path: file.path, lines });
      }
      return { mode: input.mode, matches, ...found() };
    }
  }
}
