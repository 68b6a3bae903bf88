import type { ResolvedPath } from "../capability/fs-capability.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";
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
