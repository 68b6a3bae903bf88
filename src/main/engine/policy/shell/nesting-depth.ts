/**
 * A linear pre-scan that measures how deeply a shell source nests substitutions, subshells,
 * parameter expansions and quotes, so pathologically deep input is refused before the parser
 * spends seconds re-scanning it. It errs towards counting too deep rather than too shallow;
 * only input nested beyond any real command's needs is affected.
 */

const CODE = 0;
const PAREN = 1;
const PARAM = 2;
const DOUBLE = 3;
const BACKTICK = 4;

const BACKSLASH = 0x5c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const GRAVE = 0x60;
const DOLLAR = 0x24;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const HASH = 0x23;

/** Characters after which `#` starts a comment. */
const WORD_BREAK = new Set([0x20, 0x09, 0x0a, 0x3b, 0x26, 0x7c, 0x28, 0x29, 0x3c, 0x3e]);

/** Index of the quote closing a single-quoted string opened at `index` (`$'…'` honours escapes). */
function closingQuote(source: string, index: number, escapes: boolean): number {
  if (!escapes) {
    const close = source.indexOf("'", index + 1);
    return close === -1 ? source.length : close;
  }
  for (let i = index + 1; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === SINGLE_QUOTE) return i;
  }
  return source.length;
}

/**
 * The deepest nesting in `source`, or `limit + 1` as soon as it goes beyond `limit` (the scan
 * stops there, so the cost stays linear even for hostile input).
 */
export function nestingDepth(source: string, limit: number): number {
  const stack: number[] = [CODE];
  let deepest = 1;
  const length = source.length;
  for (let i = 0; i < length; i++) {
    const code = source.charCodeAt(i);
    const next = source.charCodeAt(i + 1);
    const top = stack[stack.length - 1] as number;
    let opens = -1;
    if (code === BACKSLASH) {
      i++;
      continue;
    }
    if (top === DOUBLE) {
      if (code === DOUBLE_QUOTE) stack.pop();
      else if (code === DOLLAR && next === OPEN_PAREN) opens = PAREN;
      else if (code === DOLLAR && next === OPEN_BRACE) opens = PARAM;
      else if (code === GRAVE) opens = BACKTICK;
    } else if (code === SINGLE_QUOTE) {
      i = closingQuote(source, i, false);
    } else if (code === DOLLAR && next === SINGLE_QUOTE) {
      i = closingQuote(source, i + 1, true);
    } else if (code === DOUBLE_QUOTE) {
      opens = DOUBLE;
    } else if (code === GRAVE) {
      if (top === BACKTICK) stack.pop();
      else opens = BACKTICK;
    } else if (code === DOLLAR && next === OPEN_BRACE) {
      opens = PARAM;
    } else if (code === OPEN_PAREN) {
      opens = PAREN;
    } else if (code === CLOSE_PAREN) {
      if (top === PAREN) stack.pop();
    } else if (code === CLOSE_BRACE) {
      if (top === PARAM) stack.pop();
    } else if (code === HASH && top !== PARAM && (i === 0 || WORD_BREAK.has(source.charCodeAt(i - 1)))) {
      const newline = source.indexOf("\n", i);
      i = newline === -1 ? length : newline - 1;
    }
    if (opens === -1) continue;
    stack.push(opens);
    if (stack.length > deepest) deepest = stack.length;
    if (deepest > limit) return deepest;
    // `$(` and `${` are two characters.
    if (code === DOLLAR) i++;
  }
  return deepest;
}
