import path from "node:path";
import { lookUpProgram } from "../spawner/program-lookup.ts";

const found = new Map<string, string | undefined>();

/**
 * Where `program` is on PATH now: the first regular file there this process may execute, or
 * undefined. Only absolute folders count (a relative one would depend on where this process
 * happens to be). Only stats, where the sandbox library starts a `which` process and waits.
 */
export function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const absolute = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .join(path.delimiter);
  const lookup = lookUpProgram(program, absolute, "/");
  return "file" in lookup ? lookup.file : undefined;
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
