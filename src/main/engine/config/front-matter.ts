import { parse as parseYaml } from "yaml";
import { ManifestError } from "../errors/manifest-error.ts";

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A Markdown file with YAML front matter, split: the YAML's value, and the text after it. */
interface FrontMatter {
  data: unknown;
  /** The YAML text as written. */
  yaml: string;
  body: string;
}

/**
 * Split `text` (an agent manifest, a SKILL.md) into its YAML front matter, between `---` lines,
 * and the body after it. Throws ManifestError naming `file`: without front matter, `howToStart`
 * says how to write it; with YAML that does not parse, the parser's first line (where it broke).
 */
export function readFrontMatter(text: string, file: string, howToStart: string): FrontMatter {
  const match = FRONT_MATTER.exec(text);
  if (!match) throw new ManifestError(`${file} has no front matter: ${howToStart}`);
  try {
    const yaml = match[1] as string;
    return { data: parseYaml(yaml), yaml, body: text.slice(match[0].length) };
  } catch (err) {
    // The parser's message goes on to quote the line with a caret under it: one line is enough,
    // and its line number counts from the YAML, which starts on the file's second line.
    const first = ((err as Error).message.split("\n")[0] ?? "")
      .replace(/:$/, "")
      .replace(/\bat line (\d+)/, (_, line: string) => `at line ${Number(line) + 1}`);
    // The commonest slip: a description with ": " in it, which YAML reads as a key of its own.
    const hint =
      (err as { code?: unknown }).code === "BLOCK_AS_IMPLICIT_KEY"
        ? ' A value that holds ": " must be in quotes: description: "Use it when: …".'
        : "";
    throw new ManifestError(`${file}: the front matter is not valid YAML: ${first}.${hint}`, { cause: err });
  }
}
