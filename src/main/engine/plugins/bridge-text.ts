import { readdirSync } from "node:fs";
import { transferList, WithTransfer } from "../offload/job-result.ts";

/**
 * The byte-heavy halves of the plugin `runtime`'s text traffic, run on an offload worker (see
 * offload/offload-jobs.ts) so that megabytes a plugin reads or writes are decoded, escaped and
 * encoded off the main thread. What they return crosses to the main thread as one copy.
 */

/**
 * Bytes as the JSON text of their UTF-8 decoding (bad sequences become U+FFFD), in ASCII: every
 * other character is escaped as \uXXXX, so the isolate can turn the bytes into the text one
 * byte per character (see AsciiJson).
 */
export function textJson(input: { bytes: Uint8Array }): WithTransfer<Uint8Array> {
  const { bytes } = input;
  const json = JSON.stringify(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  const ascii = json.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  const out = Buffer.from(ascii, "latin1");
  return new WithTransfer(out, transferList(out));
}

type WritePayload =
  | { ok: true; path: string; bytes: Uint8Array }
  | { ok: false; problem: "shape" }
  | { ok: false; problem: "size"; bytes: number };

/**
 * The JSON payload of `runtime.fs.writeText(path, text)`: checked, and its text encoded as UTF-8
 * (at most `maxBytes`), so only the path and the finished bytes reach the main thread.
 */
export function writePayload(input: {
  payloadJson: string;
  maxBytes: number;
}): WritePayload | WithTransfer<WritePayload> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.payloadJson);
  } catch {
    return { ok: false, problem: "shape" };
  }
  const { path, text } = (parsed ?? {}) as { path?: unknown; text?: unknown };
  if (typeof path !== "string" || typeof text !== "string") return { ok: false, problem: "shape" };
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > input.maxBytes) return { ok: false, problem: "size", bytes: bytes.length };
  return new WithTransfer({ ok: true, path, bytes }, transferList(bytes));
}

/**
 * `runtime.fs.list(dir)` as JSON: the folder's entries with their types, sorted by name, at most
 * `maxEntries` of them. Reading a folder of a million entries costs its time here, not on the
 * main thread.
 */
export function listJson(input: { dir: string; maxEntries: number }): string {
  const entries = readdirSync(input.dir, { withFileTypes: true })
    .map((e) => ({
      name: e.name,
      type: e.isFile() ? "file" : e.isDirectory() ? "dir" : e.isSymbolicLink() ? "symlink" : "other",
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return JSON.stringify(entries.slice(0, input.maxEntries));
}
