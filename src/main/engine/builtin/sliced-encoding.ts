import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { encodeText, type TextEncoding } from "./text-codec.ts";

/** Characters encoded (and hashed) between two turns of the event loop: about a millisecond. */
const SLICE_CHARS = 256 * 1024;
/** Bytes copied into the result between two turns of the event loop. */
const COPY_BYTES = 4 * 1024 * 1024;

/** Where a slice starting at `start` ends: never between the two halves of a surrogate pair. */
function sliceEnd(text: string, start: number): number {
  let end = Math.min(text.length, start + SLICE_CHARS);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
  return end;
}

/**
 * `encodeText(text, encoding)` and the SHA-256 of its bytes, done a slice at a time with a turn
 * of the event loop between slices, so a text of any length (the content of a huge write) never
 * holds the loop up for long. The bytes and the errors are encodeText's.
 */
export async function encodeTextInSlices(
  text: string,
  encoding: TextEncoding,
  signal?: AbortSignal,
): Promise<{ encoded: Buffer; sha256: string }> {
  if (text.length <= SLICE_CHARS) {
    const encoded = encodeText(text, encoding);
    return { encoded, sha256: createHash("sha256").update(encoded).digest("hex") };
  }
  const hash = createHash("sha256");
  const bom = encodeText("", encoding);
  const parts: Buffer[] = [bom];
  hash.update(bom);
  let total = bom.length;
  for (let start = 0; start < text.length;) {
    const end = sliceEnd(text, start);
    // encodeText puts the byte order mark before every piece; only the first one keeps it.
    const part = encodeText(text.slice(start, end), encoding).subarray(bom.length);
    hash.update(part);
    parts.push(part);
    total += part.length;
    start = end;
    await nextTurn();
    signal?.throwIfAborted();
  }
  const encoded = Buffer.allocUnsafeSlow(total);
  let offset = 0;
  let sinceTurn = 0;
  for (const part of parts) {
    encoded.set(part, offset);
    offset += part.length;
    sinceTurn += part.length;
    if (sinceTurn >= COPY_BYTES) {
      sinceTurn = 0;
      await nextTurn();
      signal?.throwIfAborted();
    }
  }
  return { encoded, sha256: hash.digest("hex") };
}
