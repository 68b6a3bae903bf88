import { writeFileSync } from "node:fs";
import { utf8Head, type LeftOut } from "../tools/truncation.ts";
import { sha256 } from "./file-stamp.ts";
import { countLines, decodeText, isBinary, lineBreakOf, sliceLines, type LineBreak } from "./text-codec.ts";

interface ReadTextInput {
  bytes: Uint8Array;
  /** First line (1-based) and how many lines; undefined: the whole file. */
  offset?: number;
  limit?: number;
  /** The most UTF-8 bytes of content to return; past it `content` is the head. */
  headBytes: number;
  /** Where to write the whole range when it is cut; without one, the whole range is returned. */
  sidecarPath?: string;
}

/**
 * Write the whole range to its sidecar. When that fails the whole range goes back instead, and
 * the pipeline's own truncation tries the sidecar again and reports the failure.
 */
function saved(file: string, text: string): boolean {
  try {
    // Private, as every sidecar: the file read may hold a secret.
    writeFileSync(file, text, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** A head utf8Head cut (on an LF) ended on the last CR in it instead, for a text whose lines end with CR. */
function onLineEnd(head: string, eol: LineBreak): string {
  if (eol === "\n") return head;
  const last = head.lastIndexOf("\r");
  return last > 0 ? head.slice(0, last + 1) : head;
}

/**
 * The head of a range cut at `headBytes`, the last line it reaches, and what of the range it
 * leaves out (the lines after that one, and the bytes after the head). It ends on a whole line
 * unless a single line is longer than the cap: then it ends inside that line, with a note that
 * says so and how to see the rest (continuing at the next line would skip it unseen).
 */
export function readHead(
  range: string,
  startLine: number,
  headBytes: number,
  eol: LineBreak = "\n",
): { content: string; endLine: number; leftOut: LeftOut } {
  let head = onLineEnd(utf8Head(range, headBytes), eol);
  // A line exactly as long as the cap fits whole; only its line break is past it: keep that too
  // (a byte or two over the cap), rather than say the line goes on when it does not.
  if (!head.endsWith(eol) && head.length > 0) {
    const lineBreak = [eol, "\r\n"].find((b) => range.startsWith(b, head.length));
    if (lineBreak !== undefined) head += lineBreak;
  }
  const endLine = startLine + countLines(head, eol) - 1;
  const leftOut: LeftOut = {
    kind: "text",
    bytes: Buffer.byteLength(range, "utf8") - Buffer.byteLength(head, "utf8"),
    lines: startLine + countLines(range, eol) - 1 - endLine,
    at: "end",
  };
  if (head.length === range.length || head.length === 0 || head.endsWith(eol))
    return { content: head, endLine, leftOut };
  const lineStart = head.lastIndexOf(eol) + 1;
  const next = range.indexOf(eol, head.length);
  const length = (next === -1 ? range.length : next) - lineStart;
  const note = `\n[read: line ${endLine} has ${length} characters, more than read returns at once; the text above is its first ${head.length - lineStart}. read cannot show the rest of this line: search it with grep (which shows the text around each match), or cut it into pieces with bash (fold -w 100000, head -c, tail -c). The next line is ${endLine + 1}.]`;
  return { content: head + note, endLine, leftOut };
}

type ReadTextOutcome =
  | { kind: "binary" }
  | { kind: "past-end"; totalLines: number }
  | {
      kind: "read";
      sha256: string;
      content: string;
      startLine: number;
      endLine: number;
      totalLines: number;
      /** `content` is the head of the range; the whole range is in the sidecar file. */
      cut: boolean;
      /** When cut: what of the range the head leaves out. */
      leftOut?: LeftOut;
    };

/**
 * The text of a file's bytes (or of a range of its lines), as the read tool returns it, with the
 * SHA-256 the read-before-write rule remembers. Given a sidecar path, a range longer than
 * `headBytes` is written there whole and only its head comes back, so a 100 MB file never
 * crosses to the main thread. Pure work on bytes: it runs on an offload worker for large files.
 */
export function readText(input: ReadTextInput): ReadTextOutcome {
  const { bytes } = input;
  if (isBinary(bytes)) return { kind: "binary" };
  const { text } = decodeText(bytes);
  const eol = lineBreakOf(text);
  const totalLines = countLines(text, eol);
  const startLine = input.offset ?? 1;
  if (startLine > Math.max(totalLines, 1)) return { kind: "past-end", totalLines };
  const range =
    startLine === 1 && input.limit === undefined ? text : sliceLines(text, startLine, input.limit, eol);
  const digest = sha256(bytes);
  if (input.sidecarPath !== undefined && Buffer.byteLength(range, "utf8") > input.headBytes) {
    const { content, endLine, leftOut } = readHead(range, startLine, input.headBytes, eol);
    // Over the cap by a last line break alone, the head is the whole range: nothing is cut.
    if (content !== range && saved(input.sidecarPath, range)) {
      return { kind: "read", sha256: digest, content, startLine, endLine, totalLines, cut: true, leftOut };
    }
  }
  return {
    kind: "read",
    sha256: digest,
    content: range,
    startLine,
    endLine: startLine + countLines(range, eol) - 1,
    totalLines,
    cut: false,
  };
}
