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
