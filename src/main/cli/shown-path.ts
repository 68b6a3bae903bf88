/** Control characters a file name may hold (a newline, a tab, an escape) but a terminal line must not. */
const CONTROL = /\p{Cc}/u;

/**
 * A path as one line of the CLI's tables and lists: as it is, unless it holds control characters
 * (a name with a newline would break its row, an escape sequence would reach the terminal); then
 * in double quotes with those characters escaped as JSON escapes them (`"a\nb.txt"`).
 */
export function shownPath(p: string): string {
  return CONTROL.test(p) ? JSON.stringify(p) : p;
}

/**
 * Free text (a reason, an id) as part of one line of the CLI's output: control characters
 * escaped as JSON escapes them (`\u001b`, `\n`), the rest as it is. Text a model wrote cannot
 * then move the cursor, erase the lines above or recolour the terminal of whoever reads it.
 */
export function shownText(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
}
