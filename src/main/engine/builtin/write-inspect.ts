import { sha256 } from "./file-stamp.ts";
import { decodeText, isBinary, type TextEncoding } from "./text-codec.ts";

/** What the write tool needs to know of a file it replaces. */
type ExistingFile = { kind: "binary" } | { kind: "text"; sha256: string; encoding: TextEncoding };

/**
 * Whether a file's bytes are text, in which encoding, and their SHA-256 (for the read-before-write
 * check). Pure work on bytes: it runs on an offload worker for large files.
 */
export function inspectExisting(input: { bytes: Uint8Array }): ExistingFile {
  const { bytes } = input;
  if (isBinary(bytes)) return { kind: "binary" };
  return { kind: "text", sha256: sha256(bytes), encoding: decodeText(bytes).encoding };
}
