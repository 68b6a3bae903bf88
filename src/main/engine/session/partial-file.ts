import { readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { processExists } from "../spawner/process-exists.ts";

/**
 * Files are written under a temporary name that carries the writer's process id and renamed
 * when complete, so a sidecar is never half-written under its real name. A process killed while
 * writing (kill -9, a crash, power loss) leaves only `*.PID.partial` files, which
 * `removeAbandonedPartials` clears once that process is gone.
 */
const PARTIAL = /\.(\d+)\.partial$/;

/** Where `file` is written until it is complete. */
export function partialPathOf(file: string): string {
  return `${file}.${process.pid}.partial`;
}

/** Write `data` to `file` all at once: it appears complete or not at all. */
export async function writeComplete(file: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const partial = partialPathOf(file);
  try {
    await writeFile(partial, data, { mode });
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

/** Remove the partial files in `dir` whose writer has exited; returns how many went. */
export async function removeAbandonedPartials(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const pid = PARTIAL.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processExists(Number(pid))) continue;
    await rm(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
