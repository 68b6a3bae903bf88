/**
 * UTF-8 text with stray bytes: a UTF-8 file in which a few bytes are not UTF-8 (a latin1 "©"
 * pasted into a comment, a line cut inside a character). Each stray byte (0x80 to 0xFF) stands in
 * the text as the private-use character U+EF80 to U+EFFF (U+EF00 plus the byte, as MirBSD's
 * OPTU-8 maps them), so the rest of the file reads as the UTF-8 it is, and encoding the text gives
 * back the very bytes. Not lone surrogates (Python's "surrogateescape"): those are no valid
 * Unicode, and a JSON parser (a model server's) or SQLite (the session store) would refuse or
 * replace them. A file that also holds such a private-use character as UTF-8 does not round-trip,
 * and edit refuses it (see roundTrips).
 */

/** The length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there is stray. */
function sequenceAt(bytes: Uint8Array, i: number): number {
  const lead = bytes[i] as number;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    // No overlong forms (E0 80..9F) and no UTF-16 surrogates (ED A0..BF).
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    // No overlong forms (F0 80..8F) and nothing past U+10FFFF (F4 90..).
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > bytes.length) return 0;
  const second = bytes[i + 1] as number;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    const next = bytes[i + k] as number;
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

interface StrayDecoded {
  text: string;
  /** How many characters took more than one byte (evidence of UTF-8), and how many bytes were stray. */
  multibyte: number;
  stray: number;
}

/** The character a stray byte stands as. */
const STRAY_BASE = 0xef00;

/** Decode bytes as UTF-8, each stray byte as its private-use character. */
export function decodeWithStrayBytes(bytes: Uint8Array): StrayDecoded {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let multibyte = 0;
  let stray = 0;
  let runStart = 0;
  for (let i = 0; i < buffer.length;) {
    const length = sequenceAt(buffer, i);
    if (length > 0) {
      if (length > 1) multibyte++;
      i += length;
      continue;
    }
    if (i > runStart) parts.push(buffer.toString("utf8", runStart, i));
    parts.push(String.fromCharCode(STRAY_BASE + (buffer[i] as number)));
    stray++;
    i++;
    runStart = i;
  }
  if (runStart < buffer.length) parts.push(buffer.toString("utf8", runStart));
  return { text: parts.join(""), multibyte, stray };
}

/** The characters that stand for stray bytes. */
const STRAY = /[\uef80-\uefff]/g;

/** Encode text as UTF-8, each character U+EF80 to U+EFFF as the stray byte it stands for. */
export function encodeWithStrayBytes(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const found of text.matchAll(STRAY)) {
    parts.push(
      Buffer.from(text.slice(from, found.index), "utf8"),
      Buffer.from([found[0].charCodeAt(0) - STRAY_BASE]),
    );
    from = found.index + 1;
  }
  if (from === 0) return Buffer.from(text, "utf8");
  parts.push(Buffer.from(text.slice(from), "utf8"));
  return Buffer.concat(parts);
}
