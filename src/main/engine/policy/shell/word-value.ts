import type { Assignment, Word, WordPart } from "unbash";
import type { DynamicCause, ShellWord } from "./shell-types.ts";

export type { DynamicCause } from "./shell-types.ts";

/** A word as the shell will see it, plus why it is dynamic (undefined when literal). */
interface WordValue {
  word: ShellWord;
  cause: DynamicCause | undefined;
}

const CAUSE_TEXT: Record<DynamicCause, string> = {
  expansion: "it contains an expansion or substitution",
  glob: "it contains a glob pattern",
  brace: "it contains a brace expansion",
  tilde: "it starts with ~, which expands to a home directory",
  locale: 'it is a $"…" string, which the shell may translate',
};

/** A short clause explaining a dynamic cause, for opaque reasons. */
export function describeCause(cause: DynamicCause): string {
  return CAUSE_TEXT[cause];
}

function partCause(part: WordPart): DynamicCause | undefined {
  switch (part.type) {
    case "Literal":
    case "SingleQuoted":
    case "AnsiCQuoted":
      return undefined;
    case "DoubleQuoted":
      return part.parts.some((child) => child.type !== "Literal") ? "expansion" : undefined;
    case "LocaleString":
      return "locale";
    case "Glob":
    case "ExtendedGlob":
      return "glob";
    case "BraceExpansion":
      return "brace";
    default:
      return "expansion";
  }
}

const CAUSE_RANK: Record<DynamicCause, number> = { expansion: 0, brace: 1, glob: 2, locale: 3, tilde: 4 };

function strongest(a: DynamicCause | undefined, b: DynamicCause | undefined): DynamicCause | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return CAUSE_RANK[a] <= CAUSE_RANK[b] ? a : b;
}

/** Whether a word starts with an unquoted `~` (tilde expansion). */
function startsWithTilde(word: Word): boolean {
  const first = word.parts?.[0];
  if (first === undefined) return word.text.startsWith("~");
  return first.type === "Literal" && first.text.startsWith("~");
}

/** Whether an assignment value has an unquoted `~` at its start or after an unquoted `:` (both expand). */
function assignmentHasTilde(word: Word): boolean {
  const parts = word.parts;
  if (parts === undefined) return /(^|:)~/.test(word.text);
  return parts.some(
    (part, index) =>
      part.type === "Literal" && ((index === 0 && part.text.startsWith("~")) || part.text.includes(":~")),
  );
}

/**
 * An argument that looks like an assignment (`of=~/x`, `p=a:~/b`): bash expands a `~` right
 * after its first `=` or after a `:` there too, so `dd of=~root/x` writes in root's home.
 */
export function hasAssignmentTilde(word: Word): boolean {
  const first = word.parts?.[0];
  const text = first === undefined ? word.text : first.type === "Literal" ? first.text : "";
  const match = /^[A-Za-z_][A-Za-z0-9_]*\+?=/.exec(text);
  if (match === null) return false;
  const value = text.slice(match[0].length);
  return value.startsWith("~") || value.includes(":~");
}

/** The value of a word after quote removal, or its source text when it expands at run time. */
export function wordValue(word: Word): WordValue {
  let cause: DynamicCause | undefined = startsWithTilde(word) ? "tilde" : undefined;
  for (const part of word.parts ?? []) cause = strongest(cause, partCause(part));
  if (cause !== undefined) return { word: { text: word.text, literal: false }, cause };
  return { word: { text: word.value, literal: true }, cause: undefined };
}

/** An assignment used as an argument (`declare X=1`): literal `X=1`, or dynamic with its source text. */
export function assignmentValue(assignment: Assignment): WordValue {
  const value = assignment.value;
  if (value.type === "ArrayValue" || assignment.index !== undefined) {
    return { word: { text: assignment.text, literal: false }, cause: "expansion" };
  }
  const inner = wordValue(value);
  const cause = inner.cause ?? (assignmentHasTilde(value) ? "tilde" : undefined);
  if (cause !== undefined) return { word: { text: assignment.text, literal: false }, cause };
  const operator = assignment.append === true ? "+=" : "=";
  return {
    word: { text: `${assignment.name}${operator}${inner.word.text}`, literal: true },
    cause: undefined,
  };
}

/** The value an assignment gives its variable, as a shell word (dynamic when it expands). */
export function assignedValue(assignment: Assignment): WordValue {
  const value = assignment.value;
  if (value.type === "ArrayValue")
    return {
      word: { text: value.elements.map((e) => e.text).join(" "), literal: false },
      cause: "expansion",
    };
  const inner = wordValue(value);
  if (inner.cause === undefined && assignmentHasTilde(value))
    return { word: { text: value.text, literal: false }, cause: "tilde" };
  return inner;
}

/** The unquoted literal text of a word (where a lookalike character would be taken literally). */
export function unquotedText(word: Word): string {
  const parts = word.parts;
  if (parts === undefined) return word.text;
  let text = "";
  for (const part of parts) {
    if (
      part.type === "Literal" ||
      part.type === "Glob" ||
      part.type === "BraceExpansion" ||
      part.type === "ExtendedGlob"
    ) {
      text += part.text;
    }
  }
  return text;
}
