import { oneLinePath } from "../engine/light.ts";

/**
 * A path as one line of the CLI's tables and lists: as it is, unless it holds control characters
 * (a name with a newline would break its row, an escape sequence would reach the terminal) or
 * starts with a double quote; then in double quotes with those characters escaped as JSON
 * escapes them (`"a\nb.txt"`). The same rule as the sidecars of glob and grep.
 */
export function shownPath(p: string): string {
  return oneLinePath(p);
}

/**
 * Free text (a reason, an id) as part of one line of the CLI's output: control characters
 * escaped as JSON escapes them (`\u001b`, `\n`), the rest as it is. Text a model wrote cannot
 * then move the cursor, erase the lines above or recolour the terminal of whoever reads it.
 */
export function shownText(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
}
