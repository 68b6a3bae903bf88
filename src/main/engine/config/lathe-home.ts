import os from "node:os";
import path from "node:path";

/** Lathe's per-user data directory: `$LATHE_HOME`, or `~/.lathe`. */
export function resolveLatheHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.LATHE_HOME?.trim();
  return fromEnv ? path.resolve(fromEnv) : path.join(os.homedir(), ".lathe");
}
