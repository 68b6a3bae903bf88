import { ToolCallError } from "../errors/tool-call-error.ts";

/** Inline flags at a group's start, as PCRE and ripgrep write them: `(?i)`, `(?-s)`, `(?im)`. */
const INLINE_FLAGS = /^\(\?[a-zA-Z-]+\)/;
/** A POSIX class, as in `[[:alpha:]]` or `[^x[:space:]]`. */
const POSIX_CLASS =
  /^\[:(alnum|alpha|ascii|blank|cntrl|digit|graph|lower|print|punct|space|upper|word|xdigit):\]/;

function refuse(what: string, instead: string): never {
  throw new ToolCallError(
    `The pattern uses ${what}, which JavaScript regular expressions do not have (there it silently means something else or nothing). ${instead}`,
  );
}

/**
 * How a grep pattern is read as a JavaScript regular expression. Without the `u` flag, V8 can
 * switch a pattern that backtracks too long to its linear-time engine, so the flag is used only
 * when the pattern needs it: `\p{…}`, `\P{…}` and `\u{…}` mean Unicode properties and code points
 * only under it, and are plain letters without it. Syntax of other dialects (ripgrep's, PCRE's)
 * that JavaScript would read as something else without a word is refused, saying what to write.
 */
export function regexDialect(source: string): { unicode: boolean } {
  let unicode = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1];
      const brace = source[i + 2] === "{";
      if ((next === "p" || next === "P" || next === "u") && brace) unicode = true;
      if (next === "x" && brace) refuse("\\x{…}", "Write a code point as \\u{…} (for example \\u{1F600}).");
      if (next === "A" || next === "z" || next === "Z")
        refuse(`\\${next}`, "Anchor at the start or end of a line with ^ or $.");
      i++;
    } else if (c === "[" && POSIX_CLASS.test(source.slice(i))) {
      refuse(
        "a POSIX class such as [[:alpha:]]",
        "Use \\p{L} (letters), \\p{Lu} (upper case), \\d, \\s, \\w or a range such as [A-Za-z] instead.",
      );
    } else if (c === "(" && INLINE_FLAGS.test(source.slice(i))) {
      refuse(
        `the inline flags ${INLINE_FLAGS.exec(source.slice(i))?.[0]}`,
        'Set "ignore_case": true to ignore case; for part of a pattern write (?i:…).',
      );
    }
  }
  return { unicode };
}
