// The files a git config file includes (`include.path`, `includeIf.<condition>.path`): git reads
// each as if its lines stood where the include is, so an included file is configuration as much
// as `.git/config` itself — a repository that includes `../.gitconfig` from its workspace runs
// whatever `core.fsmonitor` that file names. Conditions are not weighed (every `includeIf` counts:
// what it includes may apply tomorrow), and included files are followed to git's own depth.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readGitConfig } from "./git-config-file.ts";

/** Git stops following includes past this depth (its `MAX_INCLUDE_DEPTH`). */
const MAX_DEPTH = 10;

/** Each config file's bytes when last read, and what they include: git is run only when they change. */
const known = new Map<string, { bytes: Buffer; targets: string[] }>();

/**
 * Every file `configFile` includes, directly or through included files, absolute (missing ones
 * too: a command could create one). Empty when the file is missing or git would refuse it.
 */
export function configIncludes(configFile: string): string[] {
  const out = new Set<string>();
  const visit = (file: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const target of directIncludes(file)) {
      if (out.has(target)) continue;
      out.add(target);
      visit(target, depth + 1);
    }
  };
  visit(configFile, 1);
  return [...out];
}

function directIncludes(file: string): string[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return [];
  }
  const cached = known.get(file);
  if (cached?.bytes.equals(bytes)) return cached.targets;
  // Section and variable names are case-insensitive; without the word there is no include.
  const targets = /include/i.test(bytes.toString("latin1")) ? includeTargets(file, bytes) : [];
  known.set(file, { bytes, targets });
  return targets;
}

function includeTargets(file: string, bytes: Buffer): string[] {
  const read = readGitConfig(bytes);
  // Without git, or with a file git refuses, git runs nothing from it.
  if (read.kind !== "settings") return [];
  const targets: string[] = [];
  for (const { key, value } of read.settings) {
    if (value === undefined || value === "") continue;
    const lower = key.toLowerCase();
    if (lower !== "include.path" && !(lower.startsWith("includeif.") && lower.endsWith(".path"))) continue;
    const expanded = value === "~" || value.startsWith("~/") ? `${os.homedir()}${value.slice(1)}` : value;
    targets.push(path.resolve(path.dirname(file), expanded));
  }
  return targets;
}
