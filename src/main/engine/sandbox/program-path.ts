import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

const found = new Map<string, string | undefined>();

/**
 * Where `program` is on PATH now: the first regular file there this process may execute, or
 * undefined. Only stats, where the sandbox library starts a `which` process and waits for it.
 */
export function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue;
    const file = path.join(dir, program);
    try {
      // Most folders on PATH lack the program: asked not to throw for that, a miss costs a stat
      // rather than an exception (a start looks for a few programs in every folder on PATH).
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      accessSync(file, constants.X_OK);
    } catch {
      continue;
    }
    return file;
  }
  return undefined;
}

/**
 * findProgram, remembered per PATH value for the life of the process: for the sandbox wrapper,
 * which would otherwise block the main thread on `which` at every command.
 */
export function programPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = `${program}\u0000${env.PATH ?? ""}`;
  if (!found.has(key)) found.set(key, findProgram(program, env));
  return found.get(key);
}
