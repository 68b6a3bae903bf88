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

/** Decide the kind of a body that came without a Content-Type, from its first bytes. */
export function sniffKind(body: Buffer): Exclude<BodyKind, "unknown"> {
  const head = body.subarray(0, 8192);
  if (head.includes(0)) return "binary";
  const start = head.subarray(0, 512).toString("latin1").trimStart().toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  if (start.startsWith("{") || start.startsWith("[")) return "json";
  return "text";
}

function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
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
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return new TextDecoder("utf-8").decode(body);
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder("utf-16le").decode(body);
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder("utf-16be").decode(body);
  const chosen =
    decoder(charsetOf(contentType)) ??
    (kind === "html" ? decoder(metaCharset(body)) : undefined) ??
    new TextDecoder(isUtf8(body, cut) ? "utf-8" : "windows-1252");
  return chosen.decode(body);
}
