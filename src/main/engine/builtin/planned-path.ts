import type { ResolvedPath } from "../capability/fs-capability.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolRuntime } from "../tools/contract.ts";

/**
 * The path the capability check resolved for the file access at `index` of the call's plan, for
 * the argument `input` it was planned from: the tool uses the path as it was checked, rather
 * than resolving its argument a second time. The argument is still held to what `fs.resolve`
 * refuses before it resolves anything (empty, a NUL byte, a leading `~`).
 */
export function plannedPath(runtime: ToolRuntime, index: number, input: string): ResolvedPath {
  runtime.fs.checkInput(input);
  const access = runtime.resolved.accesses[index];
  if (access?.capability !== "fs.read" && access?.capability !== "fs.write") {
    throw new LatheError(
      "no_planned_path",
      `the call's plan has no checked file access at ${index} (the tool ran without the policy)`,
    );
  }
  return access.path;
}

/**
 * plannedPath for a tool that writes a file: a path that ends as a folder's does (`docs/`,
 * `a.txt/.`, `src/..`) is refused, though it resolves as if it named the file or folder before
 * its last part, so that `write` of `docs/` does not create a file called docs.
 */
export function plannedFilePath(runtime: ToolRuntime, index: number, input: string): ResolvedPath {
  runtime.fs.checkInput(input);
  const ending = /(?:^|\/)(\.{1,2})?$/.exec(input)?.[0];
  if (ending !== undefined) {
    throw new ToolCallError(
      `The path "${input}" ends with "${ending}", so it names a folder, not a file. Give the path of the file itself (for example "${input.replace(/\/*(?:\.{1,2})?$/, "") || "."}/name.txt").`,
    );
  }
  return plannedPath(runtime, index, input);
}
