import { readdirSync, readFileSync, realpathSync, statSync, type Dirent } from "node:fs";
import path from "node:path";
import { decodeText } from "../builtin/text-codec.ts";
import { isWithin } from "../capability/canonical-path.ts";
import { LatheError } from "../errors/lathe-error.ts";
import { ManifestError } from "../errors/manifest-error.ts";
import { parseSkillFile, type SkillFile } from "./skill-file.ts";

/** Where a skill was found; a project skill shadows a global one with the same name. */
type SkillLayer = "global" | "project";

/** A discovered skill (its instructions are loaded only when the skill tool asks). */
export interface SkillInfo {
  name: string;
  /** One line, for the system prompt. */
  description: string;
  /** Canonical absolute path of its SKILL.md. */
  path: string;
  layer: SkillLayer;
}

/** A skill folder that was skipped, with why and how to fix it. */
interface SkillProblem {
  path: string;
  message: string;
}

interface SkillCatalogInput {
  /** Canonical workspace root. */
  root: string;
  /** Canonical `$LATHE_HOME`. */
  latheHome: string;
  /** Project skills are read only from a trusted folder (their text steers the model). */
  projectTrusted: boolean;
}

const SKILL_FILE = "SKILL.md";
/** A SKILL.md larger than this is skipped: instructions, not a data dump. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

interface Scan {
  skills: Map<string, SkillInfo>;
  problems: SkillProblem[];
  notices: string[];
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
}

/** The skill folders directly under `dir`: sub-folders (or links to folders) not starting with ".". */
function skillFolders(dir: string): string[] {
  return entries(dir)
    .filter((d) => !d.name.startsWith(".") && (d.isDirectory() || d.isSymbolicLink()))
    .map((d) => path.join(dir, d.name))
    .filter((p) => {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false; // a dangling link: nothing to load, and nothing the user would call a skill
      }
    });
}

function reasonOf(err: unknown, file: string): string {
  if (LatheError.isInstance(err)) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  return `Cannot read ${file}${code ? ` (${code})` : ""}: ${(err as Error).message}. Check its permissions.`;
}

/** The canonical SKILL.md of a folder, or why the folder is skipped. */
function locate(folder: string, dir: string): { file: string } | { problem: string } {
  const file = path.join(folder, SKILL_FILE);
  let canonical: string;
  try {
    canonical = realpathSync(file);
  } catch {
    return {
      problem: `${folder} has no ${SKILL_FILE}, so it is not a skill. Add a ${SKILL_FILE} with "name" and "description" front matter, or move the folder out of ${dir}.`,
    };
  }
  if (!isWithin(dir, canonical)) {
    return {
      problem: `${file} resolves to ${canonical}, outside ${dir}; skills are loaded only from inside it. Copy the skill into ${dir} instead of linking to it.`,
    };
  }
  return { file: canonical };
}

/** Read one skill folder into `scan`, or record why it was skipped. */
function readSkill(
  folder: string,
  dir: string,
  layer: SkillLayer,
  seen: Map<string, string>,
  scan: Scan,
): void {
  const located = locate(folder, dir);
  const file = path.join(folder, SKILL_FILE);
  if ("problem" in located) {
    scan.problems.push({ path: file, message: located.problem });
    return;
  }
  let parsed: SkillFile;
  try {
    const stats = statSync(located.file);
    if (!stats.isFile()) throw new ManifestError(`${file} is not a regular file. Make it a markdown file.`);
    if (stats.size > MAX_SKILL_FILE_BYTES) {
      throw new ManifestError(
        `${file} is ${stats.size} bytes, over the ${MAX_SKILL_FILE_BYTES}-byte limit for a skill. Keep the instructions short and move reference material into other files of the skill.`,
      );
    }
    // Decoded as the skill tool decodes it (UTF-16 with its BOM, latin1…), so the description in
    // the prompt is the text the instructions are loaded with.
    parsed = parseSkillFile(decodeText(readFileSync(located.file)).text, file);
  } catch (err) {
    scan.problems.push({ path: file, message: reasonOf(err, file) });
    return;
  }
  const earlier = seen.get(parsed.name);
  if (earlier !== undefined) {
    scan.problems.push({
      path: file,
      message: `${file} is named "${parsed.name}", like ${earlier} in the same folder; only the first is used. Give each skill its own name.`,
    });
    return;
  }
  seen.set(parsed.name, file);
  if (parsed.warning !== undefined) scan.notices.push(parsed.warning);
  scan.skills.set(parsed.name, {
    name: parsed.name,
    description: parsed.description,
    path: located.file,
    layer,
  });
}

/** Where `dir` really is, when a link on the way leads elsewhere; undefined when it is where it says. */
function linkedAway(dir: string): string | undefined {
  try {
    const real = realpathSync(dir);
    return real === dir ? undefined : real;
  } catch {
    return undefined; // no such folder: no skills, nothing to say
  }
}

function readLayer(dir: string, layer: SkillLayer, scan: Scan): void {
  // Each skill of a linked folder would resolve outside it: said once, for the folder.
  const real = linkedAway(dir);
  if (real !== undefined) {
    scan.problems.push({
      path: dir,
      message: `${dir} resolves to ${real} through a link; skills are loaded only from a real folder at ${dir}, so none of its skills is. Move the skills there (link the other way round if you share them).`,
    });
    return;
  }
  const seen = new Map<string, string>();
  for (const folder of skillFolders(dir)) readSkill(folder, dir, layer, seen, scan);
}

function byName(a: SkillInfo, b: SkillInfo): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The skills a session can load: folders with a SKILL.md in `$LATHE_HOME/skills/` and, when the
 * project is trusted, `<root>/.lathe/skills/` (a project skill shadows a global one of the same
 * name). Discovery reads only the front matter's name and description; the skill tool loads the
 * instructions on demand. A broken skill is skipped and reported by `problems()`, never fatal.
 * The catalog is a snapshot: `refresh()` it when a run starts, so the prompt and the tool agree.
 */
export class SkillCatalog {
  readonly globalDir: string;
  readonly projectDir: string;
  private readonly root: string;
  private readonly projectTrusted: boolean;
  private scan: Scan;
  /** Problems already told (the engine's notices carry those found when it started). */
  private readonly told = new Set<string>();

  constructor(input: SkillCatalogInput) {
    this.globalDir = path.join(input.latheHome, "skills");
    this.projectDir = path.join(input.root, ".lathe", "skills");
    this.root = input.root;
    this.projectTrusted = input.projectTrusted;
    this.scan = this.discover();
    for (const p of this.scan.problems) this.told.add(p.message);
  }

  private discover(): Scan {
    const scan: Scan = { skills: new Map(), problems: [], notices: [] };
    readLayer(this.globalDir, "global", scan);
    if (this.projectTrusted) {
      const global = new Map(scan.skills);
      readLayer(this.projectDir, "project", scan);
      // The model sees one skill per name: the user is told which of theirs this folder replaces.
      for (const [name, mine] of global) {
        const theirs = scan.skills.get(name);
        if (theirs && theirs !== mine) {
          scan.notices.push(
            `The project's skill "${name}" (${theirs.path}) replaces your skill of the same name (${mine.path}) in this folder. Rename one of them to keep both.`,
          );
        }
      }
    } else {
      const ignored = skillFolders(this.projectDir).length;
      if (ignored > 0) {
        scan.notices.push(
          `This folder is not trusted, so its ${ignored} skill folder${ignored > 1 ? "s" : ""} in ${this.projectDir} ${ignored > 1 ? "are" : "is"} ignored. Review ${ignored > 1 ? "them" : "it"}, then run: lathe trust --root ${this.root}`,
        );
      }
    }
    return scan;
  }

  /** Look at the folders again (skills added, edited or removed since). */
  refresh(): void {
    this.scan = this.discover();
    // A problem fixed since is forgotten, so the same one coming back is told again.
    const now = new Set(this.scan.problems.map((p) => p.message));
    for (const message of this.told) if (!now.has(message)) this.told.delete(message);
  }

  /**
   * Problems not told yet: a skill that broke after the catalog was made (the engine's notices
   * carry those found then). Each is returned once, and counts as told from then on.
   */
  untoldProblems(): SkillProblem[] {
    const untold = this.scan.problems.filter((p) => !this.told.has(p.message));
    for (const p of untold) this.told.add(p.message);
    return untold.map((p) => ({ ...p }));
  }

  /** Every usable skill, by name. */
  skills(): SkillInfo[] {
    return [...this.scan.skills.values()].sort(byName).map((s) => ({ ...s }));
  }

  get(name: string): SkillInfo | undefined {
    const skill = this.scan.skills.get(name);
    return skill ? { ...skill } : undefined;
  }

  /** Skill folders that were skipped, each with the reason and the fix. */
  problems(): SkillProblem[] {
    return this.scan.problems.map((p) => ({ ...p }));
  }

  /** Things to tell the user once, e.g. project skills ignored until the folder is trusted. */
  notices(): string[] {
    return [...this.scan.notices];
  }

  /**
   * The system prompt's skill index: one line per skill, `- <name>: <description>`, by name. The
   * model loads a skill's instructions with the skill tool when a task matches its description.
   */
  promptLines(): string[] {
    return this.skills().map((s) => `- ${s.name}: ${s.description}`);
  }
}
