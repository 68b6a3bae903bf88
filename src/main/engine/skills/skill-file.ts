import { z } from "zod";
import { readFrontMatter } from "../config/front-matter.ts";
import { ManifestError } from "../errors/manifest-error.ts";

/** A skill's name: what the model passes to the skill tool. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_SKILL_DESCRIPTION_CHARS = 1024;

/** What YAML made of a value that should be text, and how to write it as text. */
function notText(key: string, how: string): (issue: { input: unknown }) => string {
  return ({ input }) => {
    if (input === undefined || input === null) return how;
    const what =
      typeof input === "number"
        ? "a number"
        : typeof input === "boolean"
          ? "true or false"
          : Array.isArray(input)
            ? "a list"
            : "a set of keys";
    const example =
      typeof input === "number" || typeof input === "boolean" ? `: ${key}: "${String(input)}"` : "";
    return `it is ${what}; write it as text, in quotes${example}`;
  };
}

// Other keys (license, allowed-tools, metadata…) are allowed and ignored.
const SkillFrontMatterSchema = z.lazy(() =>
  z.looseObject({
    name: z
      .string({ error: notText("name", 'add "name:" with the skill\'s name') })
      .regex(SKILL_NAME, 'use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
    description: z
      .string({
        error: notText("description", 'add "description:" with one line saying when to use the skill'),
      })
      .trim()
      .min(1, "write one line saying when to use the skill")
      .max(MAX_SKILL_DESCRIPTION_CHARS, `keep it under ${MAX_SKILL_DESCRIPTION_CHARS} characters`),
  }),
);

/** A parsed SKILL.md: the front matter's name and description, and the instructions below it. */
export interface SkillFile {
  name: string;
  /** On one line (whitespace runs collapsed), for the system prompt. */
  description: string;
  body: string;
  /** Something its author should know though the skill loads (a description cut at " #"). */
  warning?: string;
}

/**
 * Whether an unquoted `description:` line holds ` #` before a word (`Fix issue #12`): YAML ends
 * the value there and reads the rest as a comment, which its author rarely means (`# note`, with
 * a space, reads as a comment meant as one).
 */
function cutAtComment(yaml: string): boolean {
  const value = /^description:[ \t]*(\S[^\n]*)$/m.exec(yaml)?.[1];
  return value !== undefined && !/^["'|>]/.test(value) && /[ \t]#\S/.test(value);
}

/**
 * Parse a SKILL.md: YAML front matter between `---` lines with `name` and `description`, then
 * the instructions. Throws ManifestError naming the file, what is wrong and the fix.
 */
export function parseSkillFile(text: string, file: string): SkillFile {
  const front = readFrontMatter(
    text,
    file,
    'start it with a line "---", then "name:" and "description:" lines, then "---" and the instructions.',
  );
  const data = front.data ?? {};
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ManifestError(
      `${file}: the front matter must be YAML keys ("name:", "description:"), not a list or a value.`,
    );
  }
  const parsed = SkillFrontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${i.path.map(String).join(".") || "front matter"}: ${i.message}`,
    );
    throw new ManifestError(
      `${file} is not a valid skill: ${issues.join("; ")}. Fix the front matter and try again.`,
    );
  }
  const body = front.body.trim();
  if (body === "") {
    throw new ManifestError(`${file} has no instructions: write them below the front matter.`);
  }
  const description = parsed.data.description.replace(/\s+/g, " ");
  return {
    name: parsed.data.name,
    description,
    body,
    ...(cutAtComment(front.yaml)
      ? {
          warning: `${file}: its description stops at " #" (YAML reads the rest of that line as a comment), so the model is shown "${description}". Put the whole description in quotes to keep it.`,
        }
      : {}),
  };
}
