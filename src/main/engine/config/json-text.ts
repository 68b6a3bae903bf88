import { jsonProblem } from "./json-problem.ts";

/**
 * A settings file's text as JSON.parse reads it: without the byte-order mark some editors
 * (Windows Notepad) put first in a UTF-8 file, which JSON.parse refuses as an invisible
 * "Unexpected token".
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A settings file read: its text as written (`text`, byte-order mark included, to compare with
 * the file later) and its JSON; or, when it cannot be used, `problem`: what is wrong, where
 * (line and column) and how to fix it, as one sentence without a final period.
 */
export type JsonText = { ok: true; text: string; json: unknown } | { ok: false; problem: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The line of the first byte that is not UTF-8 (where the lenient decoder puts U+FFFD). */
function firstBadLine(bytes: Uint8Array): number {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const bad = text.indexOf("\uFFFD");
  return text.slice(0, Math.max(bad, 0)).split("\n").length;
}

/**
 * Decode and parse a settings file's bytes. Refused, each saying how to fix it: text saved as
 * UTF-16 or in a legacy encoding (which would turn a path such as "~/Données" into another one),
 * an empty file, a syntax error (a comment, a trailing comma, a single-quoted string), a key
 * written twice in one object (JSON.parse would silently keep only the last one) and the name
 * `__proto__` (which JSON.parse keeps but an object built from it silently drops).
 */
export function parseJsonText(bytes: Uint8Array): JsonText {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return {
      ok: false,
      problem: "it is saved as UTF-16 text: save it as UTF-8 (in most editors: Save with Encoding, UTF-8)",
    };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return {
      ok: false,
      problem: `it is not UTF-8 text (from line ${firstBadLine(bytes)}): save it as UTF-8 (in most editors: Save with Encoding, UTF-8)`,
    };
  }
  const body = withoutByteOrderMark(text);
  if (body.trim() === "")
    return { ok: false, problem: "it is empty: write {} for no settings, or delete the file" };
  let json: unknown;
  let parseError: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    parseError = err;
  }
  const found = jsonProblem(body);
  if (found) return { ok: false, problem: `line ${found.line}, column ${found.column}: ${found.problem}` };
  // JSON.parse refused what the walk accepts: not expected, but its own words are still true.
  if (parseError !== undefined) return { ok: false, problem: (parseError as Error).message };
  return { ok: true, text, json };
}
