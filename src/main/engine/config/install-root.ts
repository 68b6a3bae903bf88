import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * The folder Lathe is installed in — the one holding its package.json, `plugins/` and `out/`.
 * Found by walking up from this module's own file, so it is the same answer whether the code runs
 * from the TypeScript sources (src/main/engine/config/), from the CLI bundle (out/cli/) or from
 * the app's bundle (out/main/).
 */
export function installRoot(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Lathe's package.json was not found above ${import.meta.url}`);
    dir = parent;
  }
  cached = dir;
  return dir;
}

let version: string | undefined;

/** Lathe's version, from the package.json of the folder it is installed in. */
export function latheVersion(): string {
  version ??= (
    JSON.parse(readFileSync(path.join(installRoot(), "package.json"), "utf8")) as { version: string }
  ).version;
  return version;
}
