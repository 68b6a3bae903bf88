import { ToolCallError } from "../errors/tool-call-error.ts";
import { regexDialect } from "./regex-dialect.ts";
import { isPlainLiteral, requiredLiteral } from "./required-literal.ts";
import { decodeText, utf16Encoding } from "./text-codec.ts";

/** Lines longer than this (in UTF-16 units) are cut around their first match. */
export const MAX_LINE_CHARS = 1000;
const CONTEXT_BEFORE_MATCH = 100;
/** A NUL byte this early makes a file binary (ripgrep's first read is as long). */
const BINARY_SNIFF_BYTES = 64 * 1024;

/** One matching line: its 1-based number and its text without the line break. */
interface MatchingLine {
  line: number;
  text: string;
}

/**
 * The bytes of a (non UTF-16) file to search, as ripgrep decides it: none when the file is
 * binary (a NUL byte in its first 64 KB); in a longer file, a later NUL byte ends the text.
 */
function searchable(bytes: Buffer, named: boolean): Buffer | undefined {
  if (named) return bytes;
  const nul = bytes.indexOf(0);
  if (nul === -1) return bytes;
  return nul < BINARY_SNIFF_BYTES ? undefined : bytes.subarray(0, nul);
}

/** How a NUL byte of a file searched as text shows in a matching line. */
export const NUL_SHOWN = "\u2400";

/** The text of one line without its terminator, cut around the match when very long. */
function lineText(text: string, start: number, end: number, matchAt: number): string {
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  const length = end - start;
  if (length <= MAX_LINE_CHARS) return text.slice(start, end);
  const from = Math.max(start, Math.min(matchAt - CONTEXT_BEFORE_MATCH, end - MAX_LINE_CHARS));
  const to = Math.min(end, from + MAX_LINE_CHARS);
  return `${from > start ? "…" : ""}${text.slice(from, to)}${to < end ? "…" : ""} [line cut: ${length} characters]`;
}

/** A text's latin1 bytes, or undefined when a character is past latin1 (no latin1 file holds it). */
function latin1Bytes(text: string): Buffer | undefined {
  return /[\u0100-\u{10ffff}]/u.test(text) ? undefined : Buffer.from(text, "latin1");
}

/** Whether every byte is ASCII: such bytes read the same in UTF-8 and in latin1. */
function isAscii(bytes: Buffer): boolean {
  return bytes.every((b) => b < 0x80);
}

/**
 * A grep pattern compiled for searching file bytes line by line. Binary files (a NUL byte in the
 * first 64 KB) never match, and a later NUL byte ends the text to search; UTF-16 files (with a
 * byte order mark, or without one but shaped as UTF-16 text, as read tells them) are decoded,
 * everything else as read decodes it: UTF-8 when the bytes are valid
 * UTF-8, latin1 otherwise (so "café" found by read in a latin1 file is found by grep too). Files whose bytes lack a literal every match must contain are rejected without
 * being decoded, which is what keeps a search over a large tree fast.
 */
export class LineMatcher {
  /** Global and multiline: walks the matches of a text. */
  private readonly all: RegExp;
  /** Multiline only: whether a text has any match at all. */
  private readonly any: RegExp;
  /** UTF-8 bytes every match contains. */
  private readonly needle: Buffer | undefined;
  /** The same literal in latin1, when that differs (it has letters past ASCII): how a latin1 file holds it. */
  private readonly latin1Needle: Buffer | undefined;
  /** The pattern is exactly the needle, all ASCII: finding its bytes is a match in any encoding. */
  private readonly plain: boolean;

  private constructor(all: RegExp, any: RegExp, needle: Buffer | undefined, plain: boolean) {
    this.all = all;
    this.any = any;
    this.needle = needle;
    const latin1 = needle === undefined || isAscii(needle) ? undefined : latin1Bytes(needle.toString("utf8"));
    this.latin1Needle = latin1;
    this.plain = plain && needle !== undefined && isAscii(needle);
  }

  /**
   * Throws a ToolCallError quoting the regex engine when the pattern is not a valid JavaScript
   * regex, or naming the syntax of another dialect it uses (see regexDialect).
   */
  static compile(pattern: string, ignoreCase: boolean): LineMatcher {
    const flags = `m${ignoreCase ? "i" : ""}${regexDialect(pattern).unicode ? "u" : ""}`;
    let all: RegExp;
    try {
      all = new RegExp(pattern, `g${flags}`);
    } catch (err) {
      throw new ToolCallError(
        `The pattern is not a valid JavaScript regular expression: ${(err as Error).message}. Fix the syntax, or escape special characters such as ( [ { . * + ? with a backslash to match them literally.`,
      );
    }
    const literal = requiredLiteral(pattern);
    // A case-insensitive search can only use a needle that has no letters.
    const usable = literal !== undefined && (!ignoreCase || literal.toLowerCase() === literal.toUpperCase());
    return new LineMatcher(
      all,
      new RegExp(pattern, flags),
      usable ? Buffer.from(literal, "utf8") : undefined,
      usable && literal === pattern && isPlainLiteral(pattern),
    );
  }

  /**
   * The text to search, or undefined when the file is binary or cannot match. A file the search
   * `named` (its path, not a folder holding it) is searched whole as text, NUL bytes and all.
   */
  private textOf(bytes: Buffer, named: boolean): string | undefined {
    if (utf16Encoding(bytes)) return decodeText(bytes).text;
    if (this.needle && bytes.indexOf(this.needle) === -1) {
      if (!this.latin1Needle || bytes.indexOf(this.latin1Needle) === -1) return undefined;
    }
    const text = searchable(bytes, named);
    return text === undefined ? undefined : decodeText(text).text;
  }

  /** Whether the file has at least one match (`named`: see textOf). */
  matches(bytes: Buffer, named = false): boolean {
    if (this.plain && this.needle && !utf16Encoding(bytes)) {
      const at = bytes.indexOf(this.needle);
      if (at === -1) return false;
      const text = searchable(bytes, named);
      return text !== undefined && at + this.needle.length <= text.length;
    }
    const text = this.textOf(bytes, named);
    return text !== undefined && this.any.test(text);
  }

  /** How many lines of the file hold a match (`named`: see textOf). */
  count(bytes: Buffer, named = false): number {
    const text = this.textOf(bytes, named);
    if (text === undefined) return 0;
    let count = 0;
    this.forEachMatchingLine(text, () => count++);
    return count;
  }

  /** The file's matching lines, in order (`named`: see textOf; a NUL byte shows as NUL_SHOWN). */
  lines(bytes: Buffer, named = false): MatchingLine[] {
    const text = this.textOf(bytes, named);
    if (text === undefined) return [];
    const found: MatchingLine[] = [];
    this.forEachMatchingLine(text, (line, start, end, at) => {
      const shown = lineText(text, start, end, at);
      found.push({ line, text: named ? shown.replaceAll("\0", NUL_SHOWN) : shown });
    });
    return found;
  }

  /**
   * Visit each line of `text` that holds the start of a match: its 1-based number, where it
   * starts and ends, and where its first match starts. A match may span lines; it counts once,
   * for its first line. Nothing after a final line break is a line.
   */
  private forEachMatchingLine(
    text: string,
    visit: (line: number, start: number, end: number, matchAt: number) => void,
  ): void {
    const regex = this.all;
    const limit = text.length > 0 && text.charCodeAt(text.length - 1) !== 10 ? text.length + 1 : text.length;
    let line = 1;
    let lineStart = 0;
    let next = text.indexOf("\n");
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m !== null && m.index < limit; m = regex.exec(text)) {
      while (next !== -1 && next < m.index) {
        line++;
        lineStart = next + 1;
        next = text.indexOf("\n", lineStart);
      }
      visit(line, lineStart, next === -1 ? text.length : next, m.index);
      if (next === -1) break;
      regex.lastIndex = next + 1;
    }
  }
}
