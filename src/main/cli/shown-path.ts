import { escapeBidiControls, hasBidiControl } from "../../shared/bidi-controls.ts";
import { escapedControl, oneLinePath, terminalSafeLines } from "../engine/light.ts";

/**
 * A path as one line of the CLI's tables and lists: as it is, unless it holds control characters
 * (a name with a newline would break its row, an escape sequence would reach the terminal),
 * starts with a double quote, or holds a character that reorders the text around it
 * (`evil\u202Etxt.exe` would read `evilexe.txt`); then in double quotes with those characters
 * escaped as JSON escapes them (`"a\nb.txt"`, `"evil\u202etxt.exe"`). The sidecars of glob and
 * grep follow the same rule except for the reordering characters (see one-line-path.ts).
 */
export function shownPath(p: string): string {
  return hasBidiControl(p) ? escapeBidiControls(JSON.stringify(p)) : oneLinePath(p);
}

/**
 * Free text (a reason, an id, a title) as part of one line of the CLI's output: control
 * characters escaped as JSON escapes them (`\u001b`, `\n`), and so are the characters that
 * reorder the text around them (`\u202e`), the rest as it is. Text a model wrote cannot then move
 * the cursor, erase the lines above, recolour the terminal of whoever reads it, or show a name
 * backwards.
 */
export function shownText(text: string): string {
  return escapeBidiControls(text.replace(/\p{Cc}/gu, escapedControl));
}

/**
 * Text of many lines that a model or a tool wrote (the model's answer, an error's message) as the
 * CLI prints it to a terminal: newlines and tabs as they are, every other control character
 * escaped as in `shownText` (see terminalSafeLines in one-line-path.ts, which plugins' log files share).
 */
export function shownLines(text: string): string {
  return terminalSafeLines(text);
}
