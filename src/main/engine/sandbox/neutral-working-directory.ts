import { mkdtempSync, rmdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isWithin } from "../capability/canonical-path.ts";

let holders = 0;
let saved: string | undefined;
let neutral: string | undefined;

/** An empty folder of this process's own, outside every workspace (removed when it exits). */
function neutralDir(): string {
  if (neutral === undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lathe-sandbox-cwd-"));
    neutral = dir;
    process.once("exit", () => {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty or already gone: a stray empty folder in the temp directory is harmless.
      }
    });
  }
  return neutral;
}

/**
 * Run a sandbox wrap with the process's working directory outside the folders it may write.
 *
 * On Linux the sandbox library also protects shell and git files around the PROCESS's working
 * directory (`.bashrc`, `.gitmodules`, `.vscode`, …), covering each missing one with a
 * `/dev/null` device while a command runs. When that directory is the workspace (`lathe` run
 * inside the project, the default), every sandboxed `git status` lists them and `git add -A`
 * fails on them. Lathe names the workspace's protected paths itself, so the wrap is made from an
 * empty folder of its own instead: held for as long as any wrap runs, then changed back. Only
 * when the working directory lies inside a writable folder; never in a worker thread (which
 * cannot change it), where the placeholders stay, harmless but untidy.
 */
export async function withNeutralWorkingDirectory<T>(
  writable: readonly string[],
  wrap: () => Promise<T>,
): Promise<T> {
  if (process.platform !== "linux") return wrap();
  if (holders === 0) {
    let cwd: string;
    try {
      cwd = process.cwd();
    } catch {
      return wrap();
    }
    if (!writable.some((folder) => isWithin(folder, cwd))) return wrap();
    try {
      process.chdir(neutralDir());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ERR_WORKER_UNSUPPORTED_OPERATION") return wrap();
      throw err;
    }
    saved = cwd;
  }
  holders++;
  try {
    return await wrap();
  } finally {
    if (--holders === 0 && saved !== undefined) {
      const back = saved;
      saved = undefined;
      process.chdir(back);
    }
  }
}
