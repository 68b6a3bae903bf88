// A bare repository is a git folder with no `.git` around it: `x.git/` holding HEAD, objects/
// and refs/. Git run inside it (or below it) uses it as its git folder, reading its config and
// running its hooks, as it does a `.git` folder's (`safe.bareRepository` lets it by default).
import { lstatSync } from "node:fs";
import path from "node:path";

/**
 * Whether git, run in `folder`, takes the folder itself as its git folder: it holds HEAD and
 * either objects/ and refs/ or a commondir file (git's own test, its contents left unweighed).
 * `names`: the folder's entries when already listed, so that only a folder with a HEAD is
 * looked at further.
 */
export function isBareRepository(folder: string, names?: ReadonlySet<string>): boolean {
  if (names !== undefined && !names.has("HEAD")) return false;
  const has = (name: string): boolean =>
    names !== undefined
      ? names.has(name)
      : lstatSync(path.join(folder, name), { throwIfNoEntry: false }) !== undefined;
  if (!has("HEAD")) return false;
  if (has("commondir")) return true;
  return has("objects") && has("refs");
}
