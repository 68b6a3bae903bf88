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
