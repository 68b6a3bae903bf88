import { decodeWithStrayBytes, encodeWithStrayBytes } from "./stray-bytes.ts";

/**
 * How a text file's bytes map to its text; kept so an edit writes the bytes back the same way.
 * `utf16le` and `utf16be` start with a byte order mark; the `-nobom` ones have none (found by
 * their shape, see utf16WithoutBom). The `-stray` ones are UTF-8 with a few bytes that are not
 * (see stray-bytes.ts).
 */
export type TextEncoding =
  | "utf8"
  | "utf8-bom"
  | "utf8-stray"
  | "utf8-bom-stray"
  | "utf16le"
  | "utf16be"
  | "utf16le-nobom"
  | "utf16be-nobom"
  | "latin1";

/**
 * The line terminator style of a text: only LF, only CRLF, both, only a lone CR (classic Mac
 * OS, and the CSV files Excel for Mac still saves), or no line break at all.
 */
type LineEnding = "lf" | "crlf" | "cr" | "mixed" | "none";

interface DecodedText {
  /** The text, without its byte order mark. */
  text: string;
  encoding: TextEncoding;
}

/** How many leading bytes are inspected for NUL bytes when deciding that a file is binary. */
const BINARY_SNIFF_BYTES = 8192;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function utf16Bom(bytes: Uint8Array): "utf16le" | "utf16be" | undefined {
  // FF FE 00 00 is the UTF-32LE mark: not UTF-16, so it falls through to the binary check.
  if (startsWith(bytes, [0xff, 0xfe]) && !startsWith(bytes, [0xff, 0xfe, 0x00, 0x00])) return "utf16le";
  if (startsWith(bytes, [0xfe, 0xff])) return "utf16be";
  return undefined;
}

/** Whether a UTF-16 code unit can stand in text: no NUL, no control but tab and line breaks, no noncharacter. */
function textUnit(unit: number): boolean {
  if (unit < 0x20) return unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d || unit === 0x1b;
  if (unit >= 0x7f && unit < 0xa0) return false;
  return unit !== 0xfffe && unit !== 0xffff;
}

/**
 * Whether a UTF-16 code unit outside ASCII is a character text holds: assigned in Unicode and
 * not for private use (a table of all 65,536, made on first use). Surrogates are judged apart.
 */
let assignedUnits: Uint8Array | undefined;
function assignedUnit(unit: number): boolean {
  if (assignedUnits === undefined) {
    assignedUnits = new Uint8Array(0x10000);
    const odd = /[\p{Cn}\p{Co}]/u;
    for (let u = 0; u < 0x10000; u++) assignedUnits[u] = odd.test(String.fromCharCode(u)) ? 0 : 1;
  }
  return assignedUnits[unit] === 1;
}

/** UTF-16 units that space text out: tab, line feed, carriage return, space. */
function spacingUnit(unit: number): boolean {
  return unit === 0x09 || unit === 0x0a || unit === 0x0d || unit === 0x20;
}

/** How few code units a mostly non-ASCII sample may have and still be told from binary. */
const MIN_NON_ASCII_UNITS = 64;

/**
 * Whether a byte is a control character eight-bit text does not hold (all but NUL, tab, line
 * breaks, form feed and escape). UTF-16 text in another script than Latin has such bytes: its
 * units' other half (Cyrillic U+04xx, 、 U+3001 and 。 U+3002 in Japanese) or its low half.
 */
function controlByte(byte: number): boolean {
  return (byte > 0 && byte < 0x20 && !textUnit(byte)) || byte === 0x7f;
}

/**
 * Whether the first 8 KB of a file without a byte order mark read as UTF-16 text in this byte
 * order (Windows tools and some exporters write it so): an even length, no unit that text does
 * not hold (NUL, a control other than tab and line breaks, U+FFFE) and no surrogate out of its
 * pair; and either more than half of the code units ASCII (their other byte zero, always on the
 * same side), or — for text in another script (Cyrillic, Japanese…), whose units are mostly not
 * ASCII — at least 64 units, every one an assigned character that is not for private use, with a
 * space, tab or line break among them written as UTF-16 (the zero byte beside it on the same side)
 * and a byte that eight-bit text never holds (see controlByte).
 * Binary files fail it: their zero bytes fall on both sides (a run of zeros is a NUL unit), and
 * random bytes make few units ASCII and, among 64 units, one unassigned, private-use or
 * lone surrogate. Eight-bit text with a stray NUL fails it too: it has no such control byte (UTF-8
 * Cyrillic read as UTF-16 is all Hangul, so only that tells them apart).
 */
function looksUtf16(bytes: Uint8Array, littleEndian: boolean): boolean {
  if (bytes.length < 4 || bytes.length % 2 !== 0) return false;
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  const unitAt = (i: number): number =>
    littleEndian
      ? (bytes[i] as number) | ((bytes[i + 1] as number) << 8)
      : ((bytes[i] as number) << 8) | (bytes[i + 1] as number);
  let ascii = 0;
  let spacing = 0;
  let unassigned = 0;
  let controls = 0;
  for (let i = 0; i < end; i += 2) {
    const unit = unitAt(i);
    if (!textUnit(unit)) return false;
    if (controlByte(unit & 0xff) || controlByte(unit >> 8)) controls++;
    if (unit < 0x80) {
      ascii++;
      if (spacingUnit(unit)) spacing++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate needs a low one next (unless the sample ends first); skip that one.
      if (i + 2 < end) {
        const low = unitAt(i + 2);
        if (low < 0xdc00 || low > 0xdfff) return false;
      }
      i += 2;
    } else if (!assignedUnit(unit)) unassigned++;
  }
  const units = end / 2;
  if (ascii * 2 > units) return true;
  return units >= MIN_NON_ASCII_UNITS && spacing > 0 && unassigned === 0 && controls > 0;
}

/** The byte order of a UTF-16 text file without a byte order mark, if the file is one. */
function utf16WithoutBom(bytes: Uint8Array): "utf16le-nobom" | "utf16be-nobom" | undefined {
  // Its ASCII characters put a zero byte in the first 8 KB; a file without one is never UTF-16.
  const head = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (!head.includes(0)) return undefined;
  if (looksUtf16(bytes, true)) return "utf16le-nobom";
  if (looksUtf16(bytes, false)) return "utf16be-nobom";
  return undefined;
}

/** The UTF-16 flavour of a file's bytes, with or without a byte order mark; undefined when it is not UTF-16 text. */
export function utf16Encoding(bytes: Uint8Array): TextEncoding | undefined {
  return utf16Bom(bytes) ?? utf16WithoutBom(bytes);
}

/**
 * A file is binary when a NUL byte appears in its first 8 KB, unless it is UTF-16 text: it starts
 * with a UTF-16 BOM, or it has none but its bytes have UTF-16 text's shape (see looksUtf16).
 */
export function isBinary(bytes: Uint8Array): boolean {
  if (utf16Bom(bytes)) return false;
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return utf16WithoutBom(bytes) === undefined;
  return false;
}

/** UTF-16 text of these bytes (a trailing odd byte is dropped, so such a file does not round-trip). */
function utf16Text(bytes: Buffer, littleEndian: boolean): string {
  if (littleEndian) return bytes.toString("utf16le");
  return Buffer.from(bytes.subarray(0, bytes.length & ~1))
    .swap16()
    .toString("utf16le");
}

/**
 * Decode a text file: UTF-16 (LE or BE) when it starts with that BOM, or when it has none but
 * its bytes are shaped as UTF-16 text (see looksUtf16); UTF-8 (with or without a BOM) when the
 * bytes are valid UTF-8, or mostly so (a few stray bytes, kept as private-use characters: see
 * stray-bytes.ts); and latin1 otherwise, which maps every byte to one character. Either way the
 * bytes survive a decode/encode round trip unchanged.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf16 = utf16Encoding(buffer);
  if (utf16 !== undefined) {
    const body = utf16 === "utf16le" || utf16 === "utf16be" ? buffer.subarray(2) : buffer;
    return { text: utf16Text(body, utf16 === "utf16le" || utf16 === "utf16le-nobom"), encoding: utf16 };
  }
  const hasBom = startsWith(buffer, [...UTF8_BOM]);
  const body = hasBom ? buffer.subarray(3) : buffer;
  try {
    return { text: strictUtf8.decode(body), encoding: hasBom ? "utf8-bom" : "utf8" };
  } catch {
    // Not valid UTF-8 throughout. A file marked UTF-8, or with more UTF-8 characters than stray
    // bytes, is UTF-8 with a few stray bytes: read as latin1, every one of its accented letters
    // would show as two wrong ones, and new text would be written in latin1 into it.
    const stray = decodeWithStrayBytes(body);
    if (hasBom || stray.multibyte > stray.stray)
      return { text: stray.text, encoding: hasBom ? "utf8-bom-stray" : "utf8-stray" };
    // Otherwise latin1, which keeps each byte as one character, so nothing is lost.
    return { text: buffer.toString("latin1"), encoding: "latin1" };
  }
}

/** The first character of `text` that latin1 cannot hold, if any. */
function firstNonLatin1(text: string): string | undefined {
  return /[\u0100-\u{10ffff}]/u.exec(text)?.[0];
}

/**
 * Encode text the way a file was encoded. Throws a RangeError naming the character when the
 * text cannot be expressed in that encoding (only latin1 has such characters).
 */
export function encodeText(text: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case "utf8":
      return Buffer.from(text, "utf8");
    case "utf8-bom":
      return Buffer.concat([UTF8_BOM, Buffer.from(text, "utf8")]);
    case "utf8-stray":
      return encodeWithStrayBytes(text);
    case "utf8-bom-stray":
      return Buffer.concat([UTF8_BOM, encodeWithStrayBytes(text)]);
    case "utf16le":
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    case "utf16be":
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]);
    case "utf16le-nobom":
      return Buffer.from(text, "utf16le");
    case "utf16be-nobom":
      return Buffer.from(text, "utf16le").swap16();
    case "latin1": {
      const bad = firstNonLatin1(text);
      if (bad !== undefined) {
        const code = bad.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
        throw new RangeError(`the character "${bad}" (U+${code}) cannot be written in latin1 (ISO-8859-1)`);
      }
      return Buffer.from(text, "latin1");
    }
  }
}

/** Whether decoding then encoding gives back exactly these bytes (false, say, for odd-length UTF-16). */
export function roundTrips(bytes: Uint8Array, decoded: DecodedText): boolean {
  try {
    return Buffer.from(bytes).equals(encodeText(decoded.text, decoded.encoding));
  } catch {
    return false;
  }
}

/** A short human name for an encoding, for messages. */
export function encodingName(encoding: TextEncoding): string {
  const names: Record<TextEncoding, string> = {
    utf8: "UTF-8",
    "utf8-bom": "UTF-8 with BOM",
    "utf8-stray": "UTF-8 (with some bytes that are not UTF-8)",
    "utf8-bom-stray": "UTF-8 with BOM (and some bytes that are not UTF-8)",
    utf16le: "UTF-16LE",
    utf16be: "UTF-16BE",
    "utf16le-nobom": "UTF-16LE without BOM",
    "utf16be-nobom": "UTF-16BE without BOM",
    latin1: "latin1 (ISO-8859-1)",
  };
  return names[encoding];
}

export function detectLineEnding(text: string): LineEnding {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  if (lf === 0 && crlf === 0) return text.includes("\r") ? "cr" : "none";
  if (crlf === 0) return "lf";
  if (lf === 0) return "crlf";
  return "mixed";
}

/** Turn every CRLF into LF. */
export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

/** Turn every LF into CRLF: the inverse of `toLf` for text whose line breaks were all CRLF. */
export function toCrlf(text: string): string {
  return text.replaceAll("\n", "\r\n");
}

/** Turn every CRLF and every lone CR into LF: a text of a file whose line breaks are lone CRs, as LF text. */
export function crToLf(text: string): string {
  return text.replaceAll("\r\n", "\n").replaceAll("\r", "\n");
}

/** Turn every LF into a lone CR: the inverse of `crToLf` for a text whose line breaks were all CR. */
export function lfToCr(text: string): string {
  return text.replaceAll("\n", "\r");
}

/**
 * The character that ends a text's lines: LF (a CRLF line ends with it too), or CR in a text
 * whose only line breaks are lone CRs (see detectLineEnding), which has lines all the same.
 */
export type LineBreak = "\n" | "\r";

export function lineBreakOf(text: string): LineBreak {
  return detectLineEnding(text) === "cr" ? "\r" : "\n";
}

/** Lines as an editor counts them: "a\nb\n" and "a\nb" have 2, "" has 0. */
export function countLines(text: string, eol: LineBreak = "\n"): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf(eol); i !== -1; i = text.indexOf(eol, i + 1)) count++;
  return text.endsWith(eol) ? count : count + 1;
}

/**
 * The text of lines [start, start + count) (1-based), each with its original terminator.
 * `count` undefined means "to the end".
 */
export function sliceLines(
  text: string,
  start: number,
  count: number | undefined,
  eol: LineBreak = "\n",
): string {
  let from = 0;
  for (let line = 1; line < start; line++) {
    const nl = text.indexOf(eol, from);
    if (nl === -1) return "";
    from = nl + 1;
  }
  if (count === undefined) return text.slice(from);
  let to = from;
  for (let i = 0; i < count; i++) {
    const nl = text.indexOf(eol, to);
    if (nl === -1) return text.slice(from);
    to = nl + 1;
  }
  return text.slice(from, to);
}
