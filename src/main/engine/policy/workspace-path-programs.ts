import { realpathSync } from "node:fs";
import path from "node:path";
import { isRunnable } from "../spawner/program-lookup.ts";
import type { SimpleCommand } from "../tools/shell-command.ts";
import { lookedUpNames } from "./shell/looked-up-programs.ts";
import { programOf } from "./shell/read-only-command.ts";
import { isBashBuiltin } from "./shell/relative-path-lookup.ts";
import { shown } from "./shell/shown-text.ts";

// A PATH folder inside the workspace is the workspace's to fill: `npx lathe` puts
// `<workspace>/node_modules/.bin` first, and a package installed there (or a repository that
// commits its node_modules) may hold a `cat` or a `gzip`. A read-only name must run the system's
// program, so the folder that supplies each name a command looks up (its own, and the programs
// it starts by name: looked-up-programs.ts) may not be in the workspace. Relative PATH entries
// are refused before this, by the analysis alone (relative-path-lookup.ts).

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function inside(folder: string, root: string): boolean {
  const relative = path.relative(root, folder);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The absolute PATH folder bash (or the program) takes `name` from, or undefined when none holds it. */
function folderHolding(name: string, searchPath: string): string | undefined {
  for (const entry of searchPath.split(":"))
    if (path.isAbsolute(entry) && isRunnable(path.join(entry, name))) return entry;
  return undefined;
}

/**
 * Why one of `commands` may run a program from the workspace `root` that it looks up on PATH;
 * undefined when every name it looks up is found outside the workspace (or is a builtin).
 */
export function workspacePathProgram(
  commands: readonly SimpleCommand[],
  root: string,
  searchPath: string | undefined = process.env.PATH,
): string | undefined {
  if (searchPath === undefined) return undefined;
  const workspace = canonical(root);
  for (const command of commands) {
    const program = programOf(command);
    if (program === undefined) continue;
    for (const { name, byShell } of lookedUpNames(program, command)) {
      if (byShell && isBashBuiltin(name)) continue;
      const folder = folderHolding(name, searchPath);
      if (folder !== undefined && inside(canonical(folder), workspace))
        return `PATH holds ${shown(folder)}, a folder in the workspace, and "${name}"${name === program ? "" : ` (which "${program}" starts itself)`} is found there first, so it would run the workspace's program instead of the system's`;
    }
  }
  return undefined;
}
