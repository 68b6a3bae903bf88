import { parseDocument } from "yaml";
import { ManifestError } from "../errors/manifest-error.ts";
import { jsonShapeProblem } from "../tools/json-shape.ts";
import { nestedTooDeep, yamlErrorPlace, yamlTooDeep } from "./yaml-nesting.ts";

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * How deep a front matter may nest. Its fields (description, tools, requires, permissions,
 * budgets, …) need a few levels; far deeper, the YAML parser runs out of stack.
 */
export const MAX_FRONT_MATTER_DEPTH = 100;

/** A Markdown file with YAML front matter, split: the YAML's value, and the text after it. */
interface FrontMatter {
  data: unknown;
  /** The YAML text as written. */
  yaml: string;
  body: string;
}

const FLATTEN = `keep its fields within ${MAX_FRONT_MATTER_DEPTH} levels.`;

/** The YAML's value, or the ManifestError that says in one line why it has none. */
function yamlValue(yaml: string, file: string): unknown {
  const doc = parseDocument(yaml);
  const tooDeep = yamlTooDeep(doc.errors);
  if (tooDeep !== undefined) {
    // The YAML starts on the file's second line, after the first "---".
    const place = yamlErrorPlace(tooDeep, 2);
    throw new ManifestError(
      `${file}: the front matter${place === undefined ? "" : ` at ${place}`} ${nestedTooDeep("front matter", MAX_FRONT_MATTER_DEPTH)}: ${FLATTEN}`,
      { cause: tooDeep },
    );
  }
  try {
    const [first] = doc.errors;
    if (first !== undefined) throw first;
    return doc.toJS();
  } catch (err) {
    // The parser's message goes on to quote the line with a caret under it: one line is enough,
    // and its line number counts from the YAML, which starts on the file's second line.
    const line = ((err as Error).message.split("\n")[0] ?? "")
      .replace(/:$/, "")
      .replace(/\bat line (\d+)/, (_, n: string) => `at line ${Number(n) + 1}`);
    // The commonest slip: a description with ": " in it, which YAML reads as a key of its own.
    const hint =
      (err as { code?: unknown }).code === "BLOCK_AS_IMPLICIT_KEY"
        ? ' A value that holds ": " must be in quotes: description: "Use it when: …".'
        : "";
    throw new ManifestError(`${file}: the front matter is not valid YAML: ${line}.${hint}`, { cause: err });
  }
}

/**
 * Split `text` (an agent manifest, a SKILL.md) into its YAML front matter, between `---` lines,
 * and the body after it. Throws ManifestError naming `file`: without front matter, `howToStart`
 * says how to write it; with YAML that does not parse, the parser's first line (where it broke);
 * nested past MAX_FRONT_MATTER_DEPTH, that and where.
 */
export function readFrontMatter(text: string, file: string, howToStart: string): FrontMatter {
  const match = FRONT_MATTER.exec(text);
  if (!match) throw new ManifestError(`${file} has no front matter: ${howToStart}`);
  const yaml = match[1] as string;
  const data = yamlValue(yaml, file);
  const deep = jsonShapeProblem(data, MAX_FRONT_MATTER_DEPTH);
  if (deep !== undefined)
    throw new ManifestError(`${file}: the front matter ${deep}, which Lathe does not read: ${FLATTEN}`);
  return { data, yaml, body: text.slice(match[0].length) };
}
