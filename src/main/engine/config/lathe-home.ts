import os from "node:os";
import path from "node:path";

/**
 * Lathe's per-user data directory: `$LATHE_HOME`, or else `fallback` — `~/.lathe` for the CLI and
 * `lathe serve`; the desktop app passes the OS's app-data folder.
 */
export function resolveLatheHome(
  env: NodeJS.ProcessEnv = process.env,
  fallback: string = path.join(os.homedir(), ".lathe"),
): string {
  const fromEnv = env.LATHE_HOME?.trim();
  return path.resolve(fromEnv ? fromEnv : fallback);
}
