/** How much of one text the page draws at first: enough to read, little enough to stay quick. */
export const PREVIEW_LIMITS = { lines: 1_000, chars: 100_000 } as const;

export interface TextPreview {
  /** The head of the text that is drawn: whole lines, unless one line alone passes `chars`. */
  shown: string;
  /** Lines of the text after `shown` (a line cut in the middle counts as not shown). */
  hiddenLines: number;
  /** Characters of the text after `shown`. */
  hiddenChars: number;
  /** Lines of the whole text. */
  totalLines: number;
}

/** The number of lines of `text`: its newlines, plus one for a last line without one. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

/**
 * The first `lines` lines of `text`, and no more than `chars` characters of them (cut after the
 * last newline within that when there is one), with what is left out counted.
 */
export function previewText(
  text: string,
  limits: { lines: number; chars: number } = PREVIEW_LIMITS,
): TextPreview {
  const totalLines = lineCount(text);
  let end = 0;
  let lines = 0;
  while (lines < limits.lines && end < text.length) {
    const newline = text.indexOf("\n", end);
    end = newline === -1 ? text.length : newline + 1;
    lines++;
  }
  if (end > limits.chars) {
    const lastNewline = text.lastIndexOf("\n", limits.chars - 1);
    end = lastNewline > 0 ? lastNewline + 1 : limits.chars;
  }
  const shown = text.slice(0, end);
  // A last line cut in the middle is not counted as shown.
  const whole = end === text.length || shown.endsWith("\n");
  const shownLines = whole ? lineCount(shown) : lineCount(shown) - 1;
  return { shown, hiddenLines: totalLines - shownLines, hiddenChars: text.length - end, totalLines };
}
