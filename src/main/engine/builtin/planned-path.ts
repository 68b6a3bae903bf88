import type { ResolvedPath } from "../capability/fs-capability.ts";
import { LatheError } from "../errors/lathe-error.ts";
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
