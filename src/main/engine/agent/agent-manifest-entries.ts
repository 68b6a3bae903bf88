import { readdirSync, realpathSync } from "node:fs";
import path from "node:path";

/** One `NAME.md` of an agents folder: the file to read, or why it is not read. */
export interface AgentManifestEntry {
  /** The entry's name in the folder (`reviewer.md`). */
  name: string;
  file: string;
  /** Why the file is not read (a link leading out of the project), as a sentence with its fix. */
  refused?: string;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return (
    relative !== "" &&
    !relative.startsWith(`..${path.sep}`) &&
    relative !== ".." &&
    !path.isAbsolute(relative)
  );
}

/**
 * The manifests of an agents folder, sorted by name: every `*.md` entry but a folder. The agent
 * catalog, the trust review and the trusted fingerprint all list them here, so that what a person
 * reviews before trusting a project is what its runs load. With `project` (the project folder), a
 * symbolic link counts only when its target is inside that folder: one leading out of it (to a
 * file of the user's or another checkout) is refused, saying so, and its target is not read.
 * A link that leads nowhere is listed: reading it says what is wrong.
 */
export function agentManifestEntries(dir: string, project?: string): AgentManifestEntry[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    // ENOTDIR: `.lathe` is a plain file, so there is no agents folder.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
  const realProject = project === undefined ? undefined : realpathSync(project);
  return entries
    .filter((entry) => entry.name.endsWith(".md") && !entry.isDirectory())
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((entry): AgentManifestEntry => {
      const { name } = entry;
      const file = path.join(dir, name);
      if (!entry.isSymbolicLink() || realProject === undefined) return { name, file };
      let target: string;
      try {
        target = realpathSync(file);
      } catch {
        return { name, file };
      }
      if (isInside(realProject, target)) return { name, file };
      return {
        name,
        file,
        refused: `${file} is a link to ${target}, which leads outside the project folder ${realProject}: a project's agent must be a file inside the project, so it is not loaded. Copy the manifest into ${dir} in place of the link, or remove the link.`,
      };
    });
}
