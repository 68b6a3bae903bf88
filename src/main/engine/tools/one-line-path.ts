/** Control characters a file name may hold (a newline, a tab, an escape) but one line of a list must not. */
const CONTROL = /\p{Cc}/u;

/**
 * A path as one line of a list (a sidecar of glob or grep results, the CLI's tables): as it is,
 * unless it holds a control character or starts with a double quote; then as a JSON string, in
 * double quotes with those characters escaped (`"a\nb.txt"`). A name holding a newline then
 * cannot pass for two entries, and a quoted line is never a name written as it is.
 *
 * Characters that only reorder how text is displayed (U+202E and its kin, see
 * shared/bidi-controls.ts) are left as they are: the model reads the characters in their real
 * order, so nothing is hidden from it, and it needs the name exactly to pass it to read or edit;
 * an escaped form would be one more encoding for it to undo. What a person sees escapes them
 * (the CLI's shownPath, the app's cards and diffs).
 */
export function oneLinePath(p: string): string {
  return needsQuoting(p) ? JSON.stringify(p) : p;
}

/** Whether `oneLinePath` writes the path otherwise than as it is. */
export function needsQuoting(p: string): boolean {
  return CONTROL.test(p) || p.startsWith('"');
}

// Text of many lines is shown by the same rule as a name, but for its line breaks and tabs: the
// CLI (shownLines) and plugins' log files share it with the entry, as they share oneLinePath.

/**
 * Text of many lines that a model, a tool or a plugin wrote, as it may reach a terminal (printed,
 * or in a log file a person tails): newlines and tabs as they are (`\r\n` a newline), every other
 * control character escaped as JSON escapes it (`\u001b`, `\r`), and DEL and C1 ones, which JSON
 * leaves, as `\u009b`. The text then cannot set the window's title, write to the clipboard
 * (OSC 52), clear the screen, recolour it or overwrite a line with `\r`. Characters that reorder
 * text stay: a right-to-left language needs them in prose.
 */
export function terminalSafeLines(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/[^\P{Cc}\n\t]/gu, escapedControl);
}

/** A control character as JSON escapes it (`\n`, `\u001b`), and DEL and C1 ones as `\u009b`. */
export function escapedControl(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x20 ? JSON.stringify(c).slice(1, -1) : `\\u${code.toString(16).padStart(4, "0")}`;
}
