/** How a text file's bytes map to its text; kept so an edit writes the bytes back the same way. */
export type TextEncoding = "utf8" | "utf8-bom" | "utf16le" | "utf16be" | "latin1";

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

/** A file is binary when a NUL byte appears in its first 8 KB, unless it starts with a UTF-16 BOM. */
export function isBinary(bytes: Uint8Array): boolean {
  if (utf16Bom(bytes)) return false;
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * Decode a text file: UTF-16 (LE or BE) when it starts with that BOM, UTF-8 (with or without a
 * BOM) when the bytes are valid UTF-8, and latin1 otherwise, which maps every byte to one
 * character so the bytes survive a decode/encode round trip unchanged.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf16 = utf16Bom(buffer);
  if (utf16 === "utf16le") return { text: buffer.subarray(2).toString("utf16le"), encoding: "utf16le" };
  if (utf16 === "utf16be") {
    const swapped = Buffer.from(buffer.subarray(2, 2 + ((buffer.length - 2) & ~1)));
    return { text: swapped.swap16().toString("utf16le"), encoding: "utf16be" };
  }
  const hasBom = startsWith(buffer, [...UTF8_BOM]);
  const body = hasBom ? buffer.subarray(3) : buffer;
  try {
    return { text: strictUtf8.decode(body), encoding: hasBom ? "utf8-bom" : "utf8" };
  } catch {
    // Not valid UTF-8: latin1 keeps each byte as one character, so nothing is lost.
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
    case "utf16le":
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    case "utf16be":
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]);
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
    utf16le: "UTF-16LE",
    utf16be: "UTF-16BE",
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

/** Lines as an editor counts them: "a\nb\n" and "a\nb" have 2, "" has 0. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

/**
 * The text of lines [start, start + count) (1-based), each with its original terminator.
 * `count` undefined means "to the end".
 */
export function sliceLines(text: string, start: number, count: number | undefined): string {
  let from = 0;
  for (let line = 1; line < start; line++) {
    const nl = text.indexOf("\n", from);
    if (nl === -1) return "";
    from = nl + 1;
  }
  if (count === undefined) return text.slice(from);
  let to = from;
  for (let i = 0; i < count; i++) {
    const nl = text.indexOf("\n", to);
    if (nl === -1) return text.slice(from);
    to = nl + 1;
  }
  return text.slice(from, to);
}
