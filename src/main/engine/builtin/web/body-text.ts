import { TextDecoder } from "node:util";

/** How web_fetch treats a response body, from its media type. */
export type BodyKind = "html" | "json" | "text" | "binary" | "unknown";

const TEXT_APPLICATION_TYPES = new Set([
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/csv",
  "application/x-ndjson",
  "application/x-www-form-urlencoded",
]);

/** The media type of a Content-Type header, lowercased, without parameters ("" when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function bodyKind(contentType: string | undefined): BodyKind {
  const type = mediaType(contentType);
  // No type, or the one a server sends when it does not know (raw files, object stores): the
  // bytes decide (see sniffKind).
  if (type === "" || type === "application/octet-stream" || type === "binary/octet-stream") return "unknown";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type === "text/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/") || type.endsWith("+xml") || TEXT_APPLICATION_TYPES.has(type)) return "text";
  return "binary";
}

/** The first bytes of common binary formats, and what a file starting with them is. */
const SIGNATURES: readonly { bytes: Buffer; what: string }[] = [
  ["%PDF-", "a PDF document"],
  ["\x89PNG\r\n\x1a\n", "a PNG image"],
  ["GIF87a", "a GIF image"],
  ["GIF89a", "a GIF image"],
  ["\xff\xd8\xff", "a JPEG image"],
  ["PK\x03\x04", "a zip archive"],
  ["\x1f\x8b", "gzip-compressed data"],
  ["7z\xbc\xaf\x27\x1c", "a 7-Zip archive"],
  ["Rar!\x1a\x07", "a RAR archive"],
  ["\x7fELF", "an ELF executable"],
  ["\0asm", "a WebAssembly module"],
].map(([bytes, what]) => ({ bytes: Buffer.from(bytes as string, "latin1"), what: what as string }));

/**
 * Whether a byte is one text never holds (the WHATWG MIME sniffing "binary data bytes"): the C0
 * controls except tab, newline, form feed, carriage return and escape (coloured logs have ESC).
 */
function isBinaryByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f);
}

function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
}

/** The encoding a charset label names, normalized by the decoder ("UTF-16" → "utf-16le"). */
function encodingOf(label: string | undefined): string | undefined {
  return decoder(label)?.encoding;
}

/**
 * What a body really is when it is not text, whatever its Content-Type says ("a PDF document",
 * "binary data"), or undefined when it reads as text. A body starting with a byte order mark, or
 * declared UTF-16, is text (its NULs are half its characters); otherwise the start of a known
 * binary format, a NUL, or more than one byte in a hundred that text never holds within the
 * first 8 KB makes it binary. A stray control character in a page does not.
 */
export function binaryBodyReason(body: Buffer, contentType: string | undefined): string | undefined {
  if (bomEncoding(body) !== undefined) return undefined;
  const signature = SIGNATURES.find((s) => body.subarray(0, s.bytes.length).equals(s.bytes));
  if (signature) return signature.what;
  if (encodingOf(charsetOf(contentType))?.startsWith("utf-16")) return undefined;
  const head = body.subarray(0, 8192);
  if (head.includes(0)) return "binary data";
  let odd = 0;
  for (const byte of head) if (isBinaryByte(byte)) odd++;
  return odd * 100 > head.length ? "binary data" : undefined;
}

/** Decide the kind of a body that came without a Content-Type, from its first bytes. */
export function sniffKind(body: Buffer): Exclude<BodyKind, "unknown"> {
  if (binaryBodyReason(body, undefined) !== undefined) return "binary";
  const start = decodeBody(body.subarray(0, 1024), undefined, "text", true).trimStart().toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  if (start.startsWith("{") || start.startsWith("[")) return "json";
  return "text";
}

/** An HTML document's `<meta charset>` (or http-equiv Content-Type) in its first 1024 bytes. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._:-]+)/i.exec(head)?.[1] ?? undefined;
}

function decoder(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

/** The encoding a body's byte order mark names, if it starts with one. */
function bomEncoding(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  return undefined;
}

/**
 * Whether a body is UTF-8. A body cut at the byte cap may end in the middle of a character:
 * then that incomplete tail does not count against it.
 */
function isUtf8(body: Buffer, cut: boolean): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(body, { stream: cut });
    return true;
  } catch {
    return false;
  }
}

/**
 * A body's text: a byte order mark wins, then the Content-Type charset, then (for HTML) a
 * `<meta charset>`. With none of them (or an unknown label) it is UTF-8 when its bytes are, and
 * otherwise windows-1252, as a browser reads legacy pages that declare nothing (so "café" in
 * latin1 stays "café" instead of becoming U+FFFD). Bad bytes of a declared charset become U+FFFD.
 * `cut`: the body stops at the byte cap, not where the server ended it.
 */
export function decodeBody(
  body: Buffer,
  contentType: string | undefined,
  kind: BodyKind,
  cut = false,
): string {
  const bom = bomEncoding(body);
  if (bom !== undefined) return new TextDecoder(bom).decode(body);
  const chosen =
    decoder(charsetOf(contentType)) ??
    (kind === "html" ? decoder(metaCharset(body)) : undefined) ??
    new TextDecoder(isUtf8(body, cut) ? "utf-8" : "windows-1252");
  return chosen.decode(body);
}
