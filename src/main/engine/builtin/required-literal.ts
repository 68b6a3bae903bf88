/** Characters with a meaning in a JavaScript regular expression. */
const META = /[\\^$.|?*+()[\]{}]/;

/** Whether a regular expression source is a plain string with no special characters. */
export function isPlainLiteral(source: string): boolean {
  return !META.test(source);
}

/**
 * The longest run of characters that every match of a JavaScript regular expression (source,
 * without the `u` or `v` flag) must contain, or undefined when none is known. Found
 * conservatively: alternation outside a group gives up, groups and classes break runs, a quantifier
 * that makes a character optional drops it. A search uses it to skip, without decoding, every
 * file whose bytes lack it.
 */
export function requiredLiteral(source: string): string | undefined {
  let best = "";
  let run = "";
  let depth = 0;
  const flush = (): void => {
    if (depth === 0 && run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[++i];
      if (next === undefined) return undefined;
      // \d \w \b \1 \x41 \u0041 \cJ \k<name> ...: not one fixed character.
      if (/[A-Za-z0-9]/.test(next)) flush();
      else run += next;
    } else if (c === "[") {
      flush();
      // Skip the class: a "]" right after "[" or "[^" is part of it only outside JavaScript,
      // where "[]" is the empty class; escapes inside are skipped whole.
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") {
      flush();
      depth++;
    } else if (c === ")") {
      flush();
      depth = Math.max(0, depth - 1);
    } else if (c === "?" || c === "*" || c === "{") {
      // The previous character may be absent (or "{" starts a quantifier we do not parse).
      run = run.slice(0, -1);
      flush();
      if (c === "{") while (i < source.length && source[i] !== "}") i++;
    } else if (c === "+") {
      // The previous character is there at least once, but what follows it may not be next.
      flush();
    } else if (c === "|") {
      if (depth === 0) return undefined;
      flush();
    } else if (c === "." || c === "^" || c === "$") {
      flush();
    } else {
      run += c;
    }
  }
  flush();
  return best.length > 0 && best.isWellFormed() ? best : undefined;
}
