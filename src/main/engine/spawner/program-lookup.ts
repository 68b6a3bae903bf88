import { access, constants, stat } from "node:fs/promises";
import path from "node:path";

/** Where a program runs from, or why it cannot run: the error codes a failed spawn would give. */
export type ProgramLookup = { file: string } | { code: "ENOENT" | "EACCES" };

/**
 * Find `command` as execvp would: a name with a slash is taken as it is (from `cwd`), any other
 * is looked for in each folder of `PATH` in turn (a relative folder from `cwd`). The first
 * regular file that may be executed wins; EACCES when only files that may not be were found.
 */
export async function lookUpProgram(command: string, PATH: string, cwd: string): Promise<ProgramLookup> {
  const candidates = command.includes("/")
    ? [path.resolve(cwd, command)]
    : PATH.split(":")
        .filter((dir) => dir !== "")
        .map((dir) => path.resolve(cwd, dir, command));
  let denied = false;
  for (const file of candidates) {
    const isFile = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!isFile) continue;
    const mayRun = await access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (mayRun) return { file };
    denied = true;
  }
  return { code: denied ? "EACCES" : "ENOENT" };
}
