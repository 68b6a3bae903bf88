import path from "node:path";
import { parseArgs } from "node:util";

/**
 * The folder the app opens: `--root DIR` (or `--root=DIR`) on the command line, else the current
 * directory. Electron and Chromium put their own switches in argv too, so unknown ones are ignored.
 */
export function resolveRootArgument(argv: readonly string[], cwd: string): string {
  const { values } = parseArgs({
    args: [...argv],
    options: { root: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  const root = values.root;
  return typeof root === "string" && root !== "" ? path.resolve(cwd, root) : cwd;
}
