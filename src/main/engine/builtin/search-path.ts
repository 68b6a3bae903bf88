import type { FsCapability, ResolvedPath } from "../capability/fs-capability.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";

export interface SearchPath {
  target: ResolvedPath;
  isDir: boolean;
}

/**
 * Resolve the `path` argument of a search tool for read (the workspace root when omitted).
 * Outside the tool's scope the capability's own error is thrown; a missing path or one that is
 * neither a file nor a folder is a ToolCallError that says what to do instead.
 */
export async function resolveSearchPath(fs: FsCapability, input: string | undefined): Promise<SearchPath> {
  const target = await fs.resolve(input ?? ".", "read");
  const stats = await fs.stat(target);
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
