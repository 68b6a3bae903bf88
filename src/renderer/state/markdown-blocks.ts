/** A piece of the model's text: prose (with `inline code`), or a fenced code block. */
export type TextBlock =
  | { kind: "prose"; spans: Array<{ code: boolean; text: string }> }
  | { kind: "code"; language: string; text: string; closed: boolean };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;

/** Split prose into plain and `code` spans (an unclosed backtick stays plain text). */
export function inlineSpans(text: string): Array<{ code: boolean; text: string }> {
  const spans: Array<{ code: boolean; text: string }> = [];
  const pattern = /`([^`\n]+)`/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) spans.push({ code: false, text: text.slice(last, match.index) });
    spans.push({ code: true, text: match[1] ?? "" });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ code: false, text: text.slice(last) });
  return spans;
}

/**
 * The model's text as blocks, for a chat that streams: fenced code blocks (``` or ~~~, with the
 * language after the fence) and the prose between them. A fence still open at the end (the text is
 * still arriving) is a code block too, marked not closed. Nothing else of markdown is interpreted:
 * prose keeps its line breaks as written.
 */
export function markdownBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let prose: string[] = [];
  let code: { fence: string; language: string; lines: string[] } | undefined;
  const flushProse = (): void => {
    const joined = prose.join("\n");
    if (joined.trim() !== "")
      blocks.push({ kind: "prose", spans: inlineSpans(joined.replace(/^\n+|\n+$/g, "")) });
    prose = [];
  };
  for (const line of text.split("\n")) {
    const fence = FENCE.exec(line);
    if (code) {
      const marker = fence?.[1];
      if (marker && marker[0] === code.fence[0] && marker.length >= code.fence.length && fence[2] === "") {
        blocks.push({ kind: "code", language: code.language, text: code.lines.join("\n"), closed: true });
        code = undefined;
      } else {
        code.lines.push(line);
      }
    } else if (fence) {
      flushProse();
      code = { fence: fence[1] ?? "```", language: fence[2] ?? "", lines: [] };
    } else {
      prose.push(line);
    }
  }
  if (code)
    blocks.push({ kind: "code", language: code.language, text: code.lines.join("\n"), closed: false });
  else flushProse();
  return blocks;
}
