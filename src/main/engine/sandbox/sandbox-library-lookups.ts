// What the sandbox library's wrappers import as `../utils/which.js` and `../utils/ripgrep.js`
// when they run in the process spawner (see sandbox-library-hooks.ts): the same answers, with no
// process started to get them. Each wrap looked up its shell with `which bash`, a process the
// spawner waited for with its event loop blocked, and ran the directory scan (`true`, see
// LIBRARY_SCAN) as another process: two processes before every confined process, two stdio MCP
// servers starting side by side waiting on each other's.
import { ripGrep as libraryRipGrep, RipgrepError } from "@anthropic-ai/sandbox-runtime/dist/utils/ripgrep.js";
import { findProgram } from "./program-path.ts";

export { RipgrepError };

/**
 * The directory scan Lathe gives the library (see LIBRARY_SCAN in linux-offline-wrap.ts): a
 * command that lists nothing. Lathe names the protected paths itself and wraps from an empty
 * folder of its own, where the scan could find nothing that matters.
 */
export const NO_SCAN = "true";

/**
 * Where PATH finds `bin`, as `which` answers: the first regular file this process may run in an
 * absolute PATH folder, or null. Looked up at every call (a few stats): a PATH changed since, or
 * a shell removed or installed, is seen by the next wrap, as it was with `which`.
 */
export function whichSync(bin: string): string | null {
  return findProgram(bin) ?? null;
}

type RipGrepConfig = Parameters<typeof libraryRipGrep>[3];

/**
 * The library's ripgrep run. Lathe's own scan command (NO_SCAN, `true`) prints nothing and exits
 * 0, which the library reads as no match: that answer is given without running it. Any other
 * command runs as the library runs it.
 */
export async function ripGrep(
  args: string[],
  target: string,
  abortSignal: AbortSignal,
  config?: RipGrepConfig,
): Promise<string[]> {
  if (config?.command !== NO_SCAN || config.args !== undefined)
    return libraryRipGrep(args, target, abortSignal, config);
  abortSignal.throwIfAborted();
  return [];
}
